"""The demo backend's business rules, one module per resource; kiosk.demo.backend.Backend
composes them (see kiosk/demo/README.md)."""

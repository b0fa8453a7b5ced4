"""A terminal ordering kiosk for restaurants, on the Storefront API."""

__version__ = "0.1.0"

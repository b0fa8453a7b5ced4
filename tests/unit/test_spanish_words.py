"""Spanish names checkout and payment with distinct words (issue 33, item 6): "Pagar" was both the
order's checkout and the payment."""

from __future__ import annotations

from kiosk.i18n import catalogue


def test_checkout_and_payment_are_different_words_in_spanish() -> None:
    es = catalogue("es")
    checkout = [es.gettext(m) for m in ("Checkout", "Checkout  (F2)", "Checkout · {total}")]
    payment = [es.gettext(m) for m in ("Payment", "Continue to payment", "Pay at the counter (C)")]
    for words in checkout:
        assert "pag" not in words.casefold(), words
    assert es.gettext("Checkout") == "Finalizar pedido"
    assert all("pag" in words.casefold() for words in payment), payment

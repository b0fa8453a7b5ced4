"""What the tests of both parties (the client and the demo backend) read from the specification.

The client and the demo share only the contract; their tests share this copy of its cart totals
(spec 2.4), so that each is checked against the specification, not against the other's code.
"""

# Every monetary total of the cart (spec 2.4); each has a `...Formatted` twin.
SPEC_CART_TOTALS = (
    "subTotal",
    "discountTotal",
    "waiterTipTotal",
    "taxTotal",
    "taxAndFeeTotal",
    "serviceFeeTotal",
    "paymentProcessingFeeTotal",
    "applicationFeeTotal",
    "netSalesTotal",
    "fulfillmentMethodFeeTotal",
    "orderTotalWithServiceFee",
    "orderTotal",
    "enterpriseFeeTotal",
    "subTotalWithoutDiscount",
)

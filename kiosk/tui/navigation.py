"""The router's applier, mixed into KioskApp: Textual's screen stack made to match the router.

kiosk.tui.router decides which customer-flow screens stand (bottom to top) for the order as the
Visit published it and the step a screen asked for (kiosk.tui.flow.Wants); this mixin builds
those screens and pushes and pops what differs. The screens that stay keep their state (the menu
under the order keeps its search and scroll). The order's own changes move the screens too
(`_follow_order`: paid, expired, a way to order refused), through the same decisions, and so do
a resume and a takeover (kiosk.tui.resume).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.await_complete import AwaitComplete

from kiosk.i18n import _
from kiosk.tui import router
from kiosk.tui.flow import Step, Wants

if TYPE_CHECKING:
    from kiosk.ordering.visit import Visit, VisitState

    _Host = App[None]
else:
    _Host = object


# The flow's screens by class name: naming a screen needs no import of it (the first frame does
# without the flow's screens, and the Visit's first state is published before any is shown).
STEPS_BY_CLASS: dict[str, Step | str] = {
    "LocationScreen": Step.LOCATION,
    "WelcomeScreen": Step.WELCOME,
    "MenuScreen": Step.MENU,
    "CartScreen": Step.ORDER,
    "CheckoutScreen": Step.CHECKOUT,
    "PaymentScreen": Step.PAYMENT,
    "DoneScreen": Step.DONE,
    "ProductScreen": router.PRODUCT,
}


def step_of(screen: object) -> Step | str:
    """How the router names `screen` (a subclass is named as its flow screen)."""
    for cls in type(screen).__mro__:
        step = STEPS_BY_CLASS.get(cls.__name__)
        if step is not None and cls.__module__.startswith("kiosk.tui.screens."):
            return step
    return router.OTHER


class Navigation(_Host):
    """Navigation and the reset, mixed into KioskApp. Needs of its host: `visit`, `settings`,
    `single_location`, hold_keys/release_keys (kiosk.tui.held_keys) and the language and text
    size resets (KioskApp, kiosk.tui.a11y)."""

    _swapping = False
    _visit: Visit | None = None
    if TYPE_CHECKING:

        @property
        def visit(self) -> Visit: ...
        @property
        def single_location(self) -> bool: ...
        @property
        def settings(self) -> Any: ...
        @property
        def services(self) -> Any: ...
        @property
        def cart(self) -> Any: ...
        def hold_keys(self, after: float | None = None) -> int: ...
        def release_keys(self, hold: int) -> None: ...
        def _apply_language(self, code: str) -> None: ...
        def reset_large_text(self) -> None: ...

    # What stands --------------------------------------------------------------------------------
    def where(self, state: VisitState | None = None) -> router.Where:
        """What the router reads of the order (the Visit's latest state by default)."""
        return router.Where.of(
            state if state is not None else self.visit.state, self.single_location
        )

    def steps_shown(self) -> list[Step | str]:
        """The screens up (Textual's default screen left out) as the router names them."""
        return [step_of(screen) for screen in self.screen_stack[1:]]

    def _build(self, step: Step, wants: Wants | None) -> Any:
        from kiosk.tui.screens.cart import CartScreen
        from kiosk.tui.screens.checkout import CheckoutScreen
        from kiosk.tui.screens.done import DoneScreen
        from kiosk.tui.screens.location import LocationScreen
        from kiosk.tui.screens.menu import MenuScreen
        from kiosk.tui.screens.payment import PaymentScreen
        from kiosk.tui.screens.welcome import WelcomeScreen

        if step is Step.DONE:
            state = self.visit.state
            cart: Any = state.cart if wants is None or wants.cart is None else wants.cart
            return DoneScreen(cart, state.order.order_number)
        made: dict[Step, type] = {
            Step.LOCATION: LocationScreen,
            Step.WELCOME: WelcomeScreen,
            Step.MENU: MenuScreen,
            Step.ORDER: CartScreen,
            Step.CHECKOUT: CheckoutScreen,
            Step.PAYMENT: PaymentScreen,
        }
        return made[step]()

    # The applier ----------------------------------------------------------------------------------
    def navigate(self, wants: Wants) -> Awaitable[Any]:
        """The customer asked for `wants.step`: the router's stack for it, applied now (the stack
        changes before the next key is read); awaited, the screens are up."""
        return self.show(router.stack_for(self.where(), wants.step), wants)

    def show(self, target: Sequence[Step], wants: Wants | None = None) -> Awaitable[Any]:
        """Make the flow's screens `target`: the screens that already stand in its order stay,
        the rest are popped, the missing ones pushed. `wants.said` is said on the top one."""
        shown = self.steps_shown()
        keep = 0
        while keep < min(len(shown), len(target)) and shown[keep] == target[keep]:
            keep += 1
        waits: list[Awaitable[Any]] = [self.pop_screen() for _ in range(len(shown) - keep)]
        waits += [self.push_screen(self._build(step, wants)) for step in target[keep:]]
        top = self.screen

        async def arrived() -> None:
            for wait in waits:
                await wait
            if wants is not None and wants.said:
                say = getattr(top, "say", None)
                if say is not None:
                    say(wants.said, kind=wants.kind)

        # Running now (gathered), not queued on the app: the app goes on reading keys meanwhile, as
        # after a plain push_screen (blocking it, a burst's keys came after the new screen's focus).
        return AwaitComplete(arrived())

    # The order's own moves ------------------------------------------------------------------------
    def _follow_order(self, before: VisitState | None, state: VisitState) -> None:
        """Screens render the order's lifecycle; the router says where the order itself goes
        (kiosk.tui.router.follow): an order paid with a code the customer was shown before going
        back to the order (2.0 keeps that code payable) to the done screen; an order expired
        while choosing to the order screen (it says so, with its one way on); a way to order
        refused (switched off meanwhile, or gone over a restart) to the welcome, which says why.
        While a kept code may still pay, a slow watch asks the server now and then."""
        now = self.where(state)
        step = router.follow(
            self.where(before) if before is not None else None, now, self.steps_shown()
        )
        if step is not None:
            self.call_later(self._follow_to, step)
        order, was = state.order, (before.order if before is not None else None)
        if (
            order.phase.value == "ordering"
            and order.checkout_url is not None
            and (was is None or was.phase is not order.phase)
        ):
            self.run_worker(
                self.visit.watch_kept_handoff(),
                group="handoff-watch",
                exclusive=True,
                exit_on_error=False,
            )

    async def _follow_to(self, step: Step) -> None:
        # Decided again when its turn comes: the customer or the order may have moved on.
        if step is Step.WELCOME and not self.visit.state.way_refused:
            return
        if step is Step.ORDER and not router.on_the_menu(self.steps_shown()):
            return
        await self.show(router.stack_for(self.where(), step))

    # Start and reset ------------------------------------------------------------------------------
    def _start_screen(self) -> Any:
        return self._build(router.start(router.Where(self.single_location))[0], None)

    async def go_home(self, *, abandoned: bool = False) -> None:
        """Back to the first screen with nothing left of this visit: every field cleared now, the
        cart discarded on the server in the background (Visit.end). `abandoned`: nobody asked
        (the idle timeout), which the fleet's metrics tell apart from a start over."""
        from kiosk.ordering.events import OrderEvent

        self.visit.end(OrderEvent.ABANDONED if abandoned else OrderEvent.RESET)
        await self._show_start()

    async def serve_locations(self, location_ids: Sequence[str]) -> None:
        """Serve `location_ids` from now on (staff): one is a fixed location, several let the
        customer choose. The visit in progress ends first, as by any reset (its cart discarded),
        and the kiosk shows its new first screen."""
        ids = list(location_ids)
        if not ids:
            raise ValueError("a kiosk serves at least one location")
        self.visit.serve_locations(ids)
        self.services.location_ids = ids
        await self._show_start()

    async def _show_start(self) -> None:
        # The next customer starts in the kiosk's own language, whatever the last one chose.
        self._apply_language(self.settings.language)
        # Each new order starts in the merchant's text size (a customer may have switched it).
        self.reset_large_text()
        # One step from the last screen to the first. Popped one by one, each screen underneath
        # was drawn for a moment (the order, the menu, the last customer's welcome) and a key or
        # a tap in that moment went to a screen on its way out (issue 20: keys in bursts).
        # Repaints wait for the new first screen, and so do keys (then given to it, in order);
        # taps aimed at the old screens are dropped.
        hold = self.hold_keys()
        self._swapping = True
        try:
            with self.batch_update():
                while len(self.screen_stack) > 1:
                    await self.pop_screen()
                await self.push_screen(self._start_screen())
        finally:
            self._swapping = False
            self.release_keys(hold)

    def reset_now(self, after: float | None = None) -> None:
        """go_home() in an app worker: a screen's own worker would die with the screen it pops.
        The keys after the one that asked (Enter, then 1 on the thank-you screen) are for the
        next customer's first screen: held now (those typed after `after`, see hold_keys)."""
        hold = self.hold_keys(after)

        async def reset() -> None:
            try:
                await self.go_home()
            finally:
                self.release_keys(hold)  # also if go_home failed before the swap

        self.run_worker(reset(), group="reset", exit_on_error=False)

    def action_start_over(self) -> None:
        if self.cart is None or not self.cart.items:
            if len(self.screen_stack) > 2:
                self.reset_now()
            return
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.reset_now()

        self.push_screen(
            ConfirmDialog(
                _("Start over?"),
                detail=_("Your order will be cleared."),
                yes=_("Start over"),
                no=_("Keep my order"),
            ),
            answered,
        )

"""One app walk for a snapshot's sizes (issue 36, item 7: fewer app runs where one app can serve
several assertions).

A snapshot test parametrised by `size` walks the same app to the same screen once per size: in
the snapshot files that was most of their time (the walk, not the picture: a screen change costs
0.3-0.6 s of CPU, a picture a few ms). Here the first test of a group (the same test function
with the same parameters but `size`) walks the app once, at the group's first size, takes its
picture, resizes the terminal to each other size of the group and takes those pictures too; the
group's other tests are handed their picture without a walk. The tests still compare one picture
each with their own snapshot file, through pytest-textual-snapshot's `snap_compare` (its report
too): only `textual._doc.take_svg_screenshot`, which it calls, is replaced for these tests.

A resized kiosk draws what a kiosk started at that size draws: when this landed, every picture
it hands out was byte-identical (after the plugin's normalisation) with the one its test took
with a walk of its own. A test that must start at its size is marked `own_walk`. To check that
claim again, run the snapshot files with KIOSK_SNAPSHOT_OWN_WALKS=1: every test walks its own app.

Pictures wait in this worker's memory only until their test takes them; tests of a group that
xdist gives to another worker walk again there.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

Size = tuple[int, int]
Key = tuple[str, str, tuple[tuple[str, str], ...]]

# The sizes of each group, in the order the walk takes them (filled at collection).
_GROUP_SIZES: dict[Key, list[Size]] = {}
# Pictures taken for a test of the group that has not asked for it yet.
_WAITING: dict[tuple[Key, Size], str] = {}


def group_key(item: pytest.Item) -> Key | None:
    """The group of a snapshot test parametrised by `size`, or None for any other test."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "size" not in callspec.params:
        return None
    if "snap_compare" not in getattr(item, "fixturenames", ()):
        return None
    if item.get_closest_marker("own_walk") is not None:
        return None
    others = tuple(sorted((k, repr(v)) for k, v in callspec.params.items() if k != "size"))
    return (str(item.path), getattr(item, "originalname", item.name), others)


def learn_groups(items: Iterable[pytest.Item]) -> None:
    """At collection: which sizes each group asks for (a group of one walks as before)."""
    _GROUP_SIZES.clear()
    _WAITING.clear()
    if os.environ.get("KIOSK_SNAPSHOT_OWN_WALKS") == "1":
        return
    for item in items:
        key = group_key(item)
        if key is None:
            continue
        size = tuple(item.callspec.params["size"])  # type: ignore[attr-defined]
        sizes = _GROUP_SIZES.setdefault(key, [])
        if size not in sizes:
            sizes.append(size)  # type: ignore[arg-type]


def shared_screenshot(key: Key, original: Callable[..., str]) -> Callable[..., str] | None:
    """A `take_svg_screenshot` for a test of group `key`, or None when it has no group."""
    sizes = _GROUP_SIZES.get(key, [])
    if len(sizes) < 2:
        return None

    def take(
        app: App[Any] | None = None,
        app_path: str | None = None,
        press: Iterable[str] = (),
        hover: str = "",
        title: str | None = None,
        terminal_size: Size = (80, 24),
        run_before: Callable[[Pilot[Any]], Awaitable[None] | None] | None = None,
        wait_for_animation: bool = True,
        simplify: bool = True,
    ) -> str:
        waiting = _WAITING.pop((key, tuple(terminal_size)), None)  # type: ignore[arg-type]
        if waiting is not None:
            return waiting
        if app is None or hover or not wait_for_animation or tuple(terminal_size) not in sizes:
            return original(
                app=app,
                app_path=app_path,
                press=press,
                hover=hover,
                title=title,
                terminal_size=terminal_size,
                run_before=run_before,
                wait_for_animation=wait_for_animation,
                simplify=simplify,
            )
        pictures = walk_once(app, sizes, tuple(press), run_before, title, simplify)
        # A walk that failed on its way (the app's exception was printed) left fewer pictures:
        # this test compares nothing with its snapshot, and the rest of the group walk again.
        mine = pictures.pop(tuple(terminal_size), "")  # type: ignore[arg-type]
        _WAITING.update({(key, size): svg for size, svg in pictures.items()})
        return mine

    return take


def walk_once(
    app: App[Any],
    sizes: list[Size],
    press: tuple[str, ...],
    run_before: Callable[[Pilot[Any]], Awaitable[None] | None] | None,
    title: str | None,
    simplify: bool,
) -> dict[Size, str]:
    """Textual's `take_svg_screenshot` walk, then a picture at each size in turn."""
    pictures: dict[Size, str] = {}
    shown_title = app.title if title is None else title

    async def picture(pilot: Pilot[Any]) -> str:
        # What take_svg_screenshot waits for before its picture.
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        return pilot.app.export_screenshot(title=shown_title, simplify=simplify)

    async def auto_pilot(pilot: Pilot[Any]) -> None:
        if run_before is not None:
            result = run_before(pilot)
            if inspect.isawaitable(result):
                await result
        await pilot.pause()
        await pilot.press(*press)
        pictures[sizes[0]] = await picture(pilot)
        for size in sizes[1:]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            pictures[size] = await picture(pilot)
        pilot.app.exit()

    app.run(headless=True, auto_pilot=auto_pilot, size=sizes[0])
    return pictures

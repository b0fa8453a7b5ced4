"""The site's shared read cache on disk (kiosk.diskcache, issue 14): two clients (two terminals) on
one folder, the lock, TTLs and ETags, keys that never mix, nothing of a cart on disk, 0600 files."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk import diskcache
from kiosk.api import APIConnectionError, NotFoundError, StorefrontClient
from kiosk.api.cache import cache_rules
from kiosk.diskcache import DiskCache
from kiosk.oslock import FileLock

from .conftest import API_KEY, BASE, ClientFactory, FakeClock, Server, ok, spec_cart

MENUS = {"menus": [{"id": "m1", "categories": []}]}
MENUS_2 = {"menus": [{"id": "m2", "categories": []}]}
LOCATION = {"id": "loc_1", "restaurantDisplayName": "Demo Cafe"}


@pytest.fixture
def disk(tmp_path: Path, clock: FakeClock) -> DiskCache:
    return DiskCache(tmp_path / "cache", clock=clock.time)


def terminal(make_client: ClientFactory, disk: DiskCache, **kw: Any) -> StorefrontClient:
    """One kiosk's client on the site's shared folder (each test's terminals share `disk`)."""
    return make_client(disk_cache=disk, **kw)


async def test_the_second_terminal_reads_the_menu_from_disk_not_the_network(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    server.reply(ok(MENUS), ok([{"id": "p1", "name": "Tea", "price": "250"}]))
    first = terminal(make_client, disk)
    assert (await first.get_menus("loc_1")).menus[0].id == "m1"
    await first.list_products("loc_1")
    assert len(server.requests) == 2
    second = terminal(make_client, DiskCache(disk.root, clock=disk._clock))
    assert (await second.get_menus("loc_1")).menus[0].id == "m1"
    assert [p.id for p in await second.list_products("loc_1")] == ["p1"]
    assert len(server.requests) == 2  # nothing more went out
    assert second.stats.disk_hits == 2 and second.stats.requests == 0


async def test_past_the_ttl_the_entry_is_revalidated_with_its_etag(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(MENUS, headers={"ETag": '"v1"'}), httpx.Response(304))
    first = terminal(make_client, disk)
    await first.get_menus("loc_1")
    clock.now += first.menu_ttl + 1
    second = terminal(make_client, disk)
    menus = await second.get_menus("loc_1")
    assert menus.menus[0].id == "m1"
    assert server.last.headers["If-None-Match"] == '"v1"'
    assert second.stats.revalidated == 1
    # The 304 renewed the entry for everyone: a third terminal asks nothing.
    third = terminal(make_client, disk)
    await third.get_menus("loc_1")
    assert len(server.requests) == 2


async def test_a_changed_menu_replaces_the_entry(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(MENUS, headers={"ETag": '"v1"'}), ok(MENUS_2, headers={"ETag": '"v2"'}))
    client = terminal(make_client, disk)
    await client.get_menus("loc_1")
    clock.now += client.menu_ttl + 1
    client.clear_cache()
    assert (await client.get_menus("loc_1")).menus[0].id == "m2"
    entry = disk.get(client.disk_key("menus", "loc_1", ("", "")))
    assert entry is not None and entry.etag == '"v2"' and entry.data == MENUS_2


async def test_stale_data_is_served_when_the_server_cannot_be_reached(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(LOCATION))
    await terminal(make_client, disk).get_location("loc_1")
    clock.now += 3600 + 1
    server.default = httpx.ConnectError
    offline = terminal(make_client, disk)
    asked_at = clock.now
    location = await offline.get_location("loc_1")
    assert location.restaurant_display_name == "Demo Cafe"
    assert offline.stats.stale_served == 1
    assert offline.stale_since == asked_at  # for staff: since when the data is old
    assert isinstance(offline.last_error, APIConnectionError)


async def test_without_anything_kept_a_failure_is_raised(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    server.default = httpx.ConnectError
    with pytest.raises(APIConnectionError):
        await terminal(make_client, disk).get_location("loc_1")


async def test_a_refusal_is_not_hidden_behind_stale_data(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(ok(LOCATION), httpx.Response(404, json={"success": False, "code": "NOT_FOUND"}))
    await terminal(make_client, disk).get_location("loc_1")
    clock.now += 3600 + 1
    with pytest.raises(NotFoundError):
        await terminal(make_client, disk).get_location("loc_1")


async def test_keys_never_mix_between_backends_locations_and_dialects(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    server.default = ok(MENUS)
    await terminal(make_client, disk).get_menus("loc_1")
    assert len(server.requests) == 1
    await terminal(make_client, disk).get_menus("loc_2")
    await terminal(make_client, disk, base_url="https://other.example/api/v1").get_menus("loc_1")
    await terminal(make_client, disk, cache_namespace="demo-b.sqlite3").get_menus("loc_1")
    await terminal(make_client, disk, api_key="another-location-key").get_menus("loc_1")
    assert len(server.requests) == 5
    keys = {tuple(json.loads(p.read_text())["key"]) for p in disk.root.glob("*.json")}
    assert len(keys) == 5
    assert all(API_KEY not in "".join(key) for key in keys)


async def test_carts_and_their_reads_never_reach_the_disk(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    cart = spec_cart(id="cart_secret_77")
    server.reply(
        ok(MENUS),
        ok({"cartId": "cart_secret_77"}),
        ok({"cart": cart}),
        ok({"cartId": "cart_secret_77", "cart": cart}),
        ok([{"id": "p9", "name": "Cookie", "price": "100"}]),
    )
    client = terminal(make_client, disk)
    await client.get_menus("loc_1")
    cart_id = await client.create_or_resume_cart("loc_1")
    await client.get_cart("loc_1", cart_id)
    await client.add_item("loc_1", cart_id, "p1", 1)
    await client.cross_sell("loc_1", cart_id)
    files = list(disk.root.glob("*.json"))
    assert len(files) == 1  # the menus, and nothing else
    for path in files:
        text = path.read_text()
        assert "cart_secret_77" not in text and API_KEY not in text
        assert json.loads(text)["key"][5] == "menus"


async def test_files_are_0600_in_a_0700_folder(
    make_client: ClientFactory, server: Server, tmp_path: Path, clock: FakeClock
) -> None:
    root = tmp_path / "site" / "cache"
    disk = DiskCache(root, clock=clock.time)
    server.reply(ok(MENUS))
    await terminal(make_client, disk).get_menus("loc_1")
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    files = [p for p in root.iterdir()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


async def test_no_store_keeps_it_off_the_disk_and_max_age_shortens_the_ttl(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    server.reply(
        ok(MENUS, headers={"Cache-Control": "no-store"}),
        ok(LOCATION, headers={"Cache-Control": "public, max-age=60"}),
    )
    client = terminal(make_client, disk)
    await client.get_menus("loc_1")
    assert not list(disk.root.glob("*.json"))
    await client.get_location("loc_1")
    entry = disk.get(client.disk_key("location", "loc_1"))
    assert entry is not None and entry.expires_at == clock.now + 60


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, (300.0, True)),
        ("no-store", (0.0, False)),
        ("private, max-age=600", (0.0, False)),
        ("no-cache", (0.0, True)),
        ("max-age=60", (60.0, True)),
        ("max-age=9999", (300.0, True)),
        ("s-maxage=30, max-age=60", (30.0, True)),
        ("max-age=soon", (300.0, True)),
    ],
)
def test_cache_control_rules(header: str | None, expected: tuple[float, bool]) -> None:
    assert cache_rules(header, 300.0) == expected


def test_an_unreadable_or_foreign_file_is_a_miss(disk: DiskCache) -> None:
    key = ("storefront", "v1", BASE, "", "k", "menus", "loc_1")
    disk.put(key, MENUS, ttl=300)
    assert disk.get(key) is not None
    disk.path_for(key).write_text("{half a fi")
    assert disk.get(key) is None
    # A file whose stored key is another's (a hash collision, a hand copy) answers nothing.
    other = ("storefront", "v1", BASE, "", "k", "menus", "loc_2")
    disk.put(other, MENUS_2, ttl=300)
    disk.path_for(key).write_bytes(disk.path_for(other).read_bytes())
    assert disk.get(key) is None


def test_a_write_waits_for_the_lock_and_gives_up_quietly(
    disk: DiskCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diskcache, "LOCK_TIMEOUT", 0.05)
    key = ("k",)
    with FileLock(disk.root / diskcache.LOCK_NAME):
        assert disk.put(key, {"a": 1}, ttl=60) is False
    assert disk.get(key) is None
    assert disk.put(key, {"a": 1}, ttl=60) is True


def test_an_older_answer_never_replaces_a_newer_one(tmp_path: Path) -> None:
    now = [1000.0]
    disk = DiskCache(tmp_path / "c", clock=lambda: now[0])
    disk.put(("k",), "new", ttl=60)
    now[0] = 999.0  # a terminal whose answer was older (it started its write earlier)
    assert disk.put(("k",), "old", ttl=60) is False
    entry = disk.get(("k",))
    assert entry is not None and entry.data == "new"


# The server's body as it came: spaces, an escaped and an unescaped accent; not what json.dumps
# of the parsed answer writes.
RAW_MENUS = (
    '{ "menus" : [ {"id": "m1", "name": "Caf\\u00e9", "note": "Crème", "categories": [] } ] }\n'
)


async def test_the_menu_is_kept_as_the_bytes_the_server_sent(
    make_client: ClientFactory, server: Server, disk: DiskCache
) -> None:
    body = RAW_MENUS.encode()
    server.reply(httpx.Response(200, content=body, headers={"Content-Type": "application/json"}))
    await terminal(make_client, disk).get_menus("loc_1")
    [path] = [p for p in disk.root.glob("*.json") if body in p.read_bytes()]
    # Written around the body, not serialised again from the parsed answer (a second whole copy
    # of a large menu in memory): the data part is the server's bytes, and the file is JSON.
    assert path.read_bytes().endswith(b',"data":' + body + b"}")
    entry = DiskCache(disk.root, clock=disk._clock).get(tuple(json.loads(path.read_bytes())["key"]))
    assert entry is not None and entry.data == json.loads(body)


def old_writer_file(disk: DiskCache, key: tuple[str, ...], data: Any, stored_at: float) -> None:
    """An entry as the writer before the bodies kept as they came wrote it (one json.dumps)."""
    body = {
        "format": 1,
        "key": list(key),
        "stored_at": stored_at,
        "expires_at": stored_at + 300,
        "etag": '"v1"',
        "data": data,
    }
    encoded = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    disk.path_for(key).write_bytes(encoded.encode("utf-8"))


async def test_a_file_of_the_old_writer_is_read_revalidated_and_renewed(
    make_client: ClientFactory, server: Server, disk: DiskCache, clock: FakeClock
) -> None:
    client = terminal(make_client, disk)
    key = client.disk_key("menus", "loc_1", ("", ""))
    old_writer_file(disk, key, {"menus": [{"id": "m1", "name": "Crème", "categories": []}]}, 0.0)
    data_bytes = disk.path_for(key).read_bytes().partition(b',"data":')[2]
    head = disk.head(key)
    assert head is not None and head.etag == '"v1"' and head.stored_at == 0.0
    clock.now = 10_000.0  # long stale
    server.reply(httpx.Response(304))
    menus = await client.get_menus("loc_1")
    assert menus.menus[0].id == "m1" and client.stats.revalidated == 1
    assert server.last.headers["If-None-Match"] == '"v1"'
    # Renewed for the menu TTL with the same data, byte for byte (copied, never re-serialised).
    raw = disk.path_for(key).read_bytes()
    assert raw.partition(b',"data":')[2] == data_bytes
    entry = disk.get(key)
    assert entry is not None and entry.expires_at == clock.now + client.menu_ttl
    assert entry.stored_at == clock.now and entry.etag == '"v1"'


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short (a disk full, a copy stopped)
        lambda raw: raw[:-1],  # its last brace lost
        lambda raw: raw.replace(b',"data":', b',"dat":'),  # no data
        lambda raw: b"\x00" * len(raw),
        lambda raw: b"",
    ],
)
async def test_a_damaged_file_is_a_miss_read_again_from_the_server(
    make_client: ClientFactory,
    server: Server,
    disk: DiskCache,
    clock: FakeClock,
    damage: Callable[[bytes], bytes],
) -> None:
    client = terminal(make_client, disk)
    key = client.disk_key("menus", "loc_1", ("", ""))
    server.reply(ok(MENUS, headers={"ETag": '"v1"'}))
    await client.get_menus("loc_1")
    path = disk.path_for(key)
    path.write_bytes(damage(path.read_bytes()))
    assert disk.get(key) is None
    # A fresh-looking head over damaged data: a renewal leaves it unreadable, never crashes.
    disk.refresh(key, ttl=60)
    assert disk.get(key) is None

    def answer(request: httpx.Request) -> httpx.Response:
        # Whatever the damage left of the head: a 304 to its ETag (the data must then be read
        # again, unconditionally), the new menu otherwise.
        if "If-None-Match" in request.headers:
            return httpx.Response(304)
        return ok(MENUS_2, headers={"ETag": '"v1"'})

    server.default = answer
    for stale in (False, True):  # fresh by its head, then past its TTL
        client.clear_cache()
        clock.now += (client.menu_ttl + 1) if stale else 0
        assert (await client.get_menus("loc_1")).menus[0].id == "m2"
        entry = disk.get(key)
        assert entry is not None and entry.data == MENUS_2  # replaced by a good file
        path.write_bytes(damage(path.read_bytes()))


async def test_a_stale_entry_replaced_by_a_new_answer_is_never_read_whole(
    make_client: ClientFactory,
    server: Server,
    disk: DiskCache,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = terminal(make_client, disk)
    server.reply(ok(MENUS, headers={"ETag": '"v1"'}), ok(MENUS_2, headers={"ETag": '"v2"'}))
    await client.get_menus("loc_1")
    clock.now += client.menu_ttl + 1
    client.clear_cache()
    read: list[object] = []
    get = disk.get
    monkeypatch.setattr(disk, "get", lambda key: read.append(key) or get(key))
    assert (await client.get_menus("loc_1")).menus[0].id == "m2"
    # Only its head was read (its ETag): the old menu was never in memory beside the new one.
    assert server.last.headers["If-None-Match"] == '"v1"'
    assert read == []


def test_a_renewal_never_replaces_a_newer_entry(tmp_path: Path) -> None:
    now = [1000.0]
    disk = DiskCache(tmp_path / "c", clock=lambda: now[0])
    disk.put(("k",), "new", ttl=60)
    now[0] = 999.0
    assert disk.refresh(("k",), ttl=600) is False
    entry = disk.get(("k",))
    assert entry is not None and entry.expires_at == 1060.0
    assert disk.refresh(("missing",), ttl=60) is False


def test_a_body_not_in_utf8_is_kept_as_its_data(disk: DiskCache) -> None:
    # json.loads reads UTF-16 and -32 too; such a body cannot sit inside a UTF-8 file as it is.
    for body in (json.dumps(MENUS).encode("utf-16"), b"\xef\xbb\xbf" + json.dumps(MENUS).encode()):
        assert disk.put_json(("k",), body, ttl=60) is True
        entry = disk.get(("k",))
        assert entry is not None and entry.data == MENUS
    assert disk.put_json(("k",), b"  ", ttl=60) is False


def test_processes_writing_and_reading_one_entry_never_see_half_a_file(tmp_path: Path) -> None:
    root = tmp_path / "shared"
    DiskCache(root)
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from kiosk.diskcache import DiskCache
        disk = DiskCache(Path({str(root)!r}))
        me = int(sys.argv[1])
        bad = 0
        for n in range(40):
            disk.put(("menus",), {{"writer": me, "n": n, "pad": "x" * 20000}}, ttl=60)
            entry = disk.get(("menus",))
            if entry is None or len(entry.data["pad"]) != 20000:
                bad += 1
        print(bad)
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(i)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        for i in range(3)
    ]
    outputs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert outputs == ["0", "0", "0"]
    assert not list(root.glob(".*.tmp"))  # no temporary file left behind


def test_the_site_cache_folders_are_0700(kiosk_home: Path) -> None:
    from kiosk import paths
    from kiosk.config import Settings
    from kiosk.runtime import shared_cache

    disk = shared_cache(Settings())
    assert disk is not None and disk.root.parent == paths.cache_dir()
    for folder in (paths.cache_dir(), disk.root):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700

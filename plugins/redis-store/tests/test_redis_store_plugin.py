"""The Redis store plugin is found through its entry point and opens `redis://` URLs."""

from __future__ import annotations

import tod_redis_store
from tod_runtime.plugins import collect_components, make_plugin_manager


def test_found_through_its_entry_point() -> None:
    pm = make_plugin_manager()
    assert any(plugin is tod_redis_store for _, plugin in pm.list_name_plugin())
    components = collect_components(pm)
    store = components.open_store("redis://127.0.0.1:1/0?prefix=t&lock_timeout=3")
    assert isinstance(store, tod_redis_store.RedisStore)
    assert (store.prefix, store.lock_timeout) == ("t", 3.0)
    assert list(components.store.entries)[:2] == ["memory", "sqlite"]  # built-ins first

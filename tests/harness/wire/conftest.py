"""Fixtures: the strict provider emulators on 127.0.0.1, one server per test, stopped after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.emulators import AnthropicEmulator, GeminiEmulator, running_app


@pytest.fixture()
def anthropic_server() -> Iterator[tuple[AnthropicEmulator, str]]:
    """The emulator and the ``api_base`` litellm needs for it (no ``/v1``: litellm appends ``/v1/messages``)."""
    emulator = AnthropicEmulator()
    with running_app(emulator.app) as url:
        yield emulator, url


@pytest.fixture()
def gemini_server() -> Iterator[tuple[GeminiEmulator, str]]:
    """The emulator and the ``api_base`` litellm needs for it (``/v1beta``: litellm appends ``/models/…``)."""
    emulator = GeminiEmulator()
    with running_app(emulator.app) as url:
        yield emulator, url + "/v1beta"

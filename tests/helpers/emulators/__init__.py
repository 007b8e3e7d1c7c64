"""Strict loopback emulators of provider APIs (Anthropic Messages, Gemini generateContent) for tests.

Reached through litellm's real client: ``anthropic/<model>`` with ``api_base="http://127.0.0.1:PORT"``
(litellm appends ``/v1/messages``), ``gemini/<model>`` with ``api_base="http://127.0.0.1:PORT/v1beta"``
(litellm appends ``/models/<model>:generateContent``). Each enforces its provider's documented rules
and plays the scripted oracle; see the modules for the rules.
"""

from ._anthropic import AnthropicEmulator, Exchange
from ._gemini import PLACEHOLDER, GeminiEmulator
from ._loopback import running_app

__all__ = ["PLACEHOLDER", "AnthropicEmulator", "Exchange", "GeminiEmulator", "running_app"]

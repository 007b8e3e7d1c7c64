"""Strict loopback emulators of provider APIs (Anthropic Messages, Gemini generateContent, llama.cpp's server).

Reached through litellm's real client: ``anthropic/<model>`` with ``api_base="http://127.0.0.1:PORT"``
(litellm appends ``/v1/messages``), ``gemini/<model>`` with ``api_base="http://127.0.0.1:PORT/v1beta"``
(litellm appends ``/models/<model>:generateContent``), ``openai/<alias>`` with
``api_base="http://127.0.0.1:PORT/v1"`` for llama.cpp's server (its ``/apply-template`` and ``/props`` sit at
the root); ``mistral/<model>``, ``deepseek/<model>``, ``openai/<model>`` with
``api_base="http://127.0.0.1:PORT/v1"`` for the OpenAI-format chat APIs (``_chat``).
Each enforces its provider's documented rules and plays the scripted oracle; see the modules.
"""

from ._anthropic import AnthropicEmulator, Exchange
from ._chat import ChatEmulator, deepseek_emulator, mistral_emulator, openai_emulator
from ._gemini import PLACEHOLDER, GeminiEmulator
from ._llamacpp import GEMMA, QWEN, LlamaCppEmulator
from ._loopback import running_app
from ._vllm import VllmEmulator

__all__ = ["GEMMA", "PLACEHOLDER", "QWEN", "AnthropicEmulator", "ChatEmulator", "Exchange", "GeminiEmulator",
           "LlamaCppEmulator", "VllmEmulator", "deepseek_emulator", "mistral_emulator", "openai_emulator",
           "running_app"]

"""Redaction (O-30, Q-20): keys, bearer tokens, Authorization values and known secrets never survive."""

from __future__ import annotations

from harness.models import REDACTED, redact, secrets_from_env

SECRET = "local-PLANTED-0123456789"


def test_o30_credential_keys_replaced_whole() -> None:
    body = {"api_key": "anything", "headers": {"Authorization": "Basic abc", "X-Api-Key": "k"}, "model": "m"}
    out = redact(body, secrets=[])
    assert out == {"api_key": REDACTED, "headers": {"Authorization": REDACTED, "X-Api-Key": REDACTED}, "model": "m"}
    assert body["api_key"] == "anything"  # a copy; the input is untouched


def test_o30_known_secret_replaced_inside_any_string() -> None:
    out = redact({"messages": [{"content": f"the key is {SECRET}!"}], "n": 3}, secrets=[SECRET])
    assert out == {"messages": [{"content": f"the key is {REDACTED}!"}], "n": 3}


def test_o30_bearer_and_sk_shapes_replaced_by_pattern() -> None:
    text = "Authorization: Bearer abcdefghijklmnop and sk-proj-ABCDEFGHIJKLMNOPQRST in a log line"
    out = redact([text], secrets=[])
    assert out == [f"Authorization: Bearer {REDACTED} and {REDACTED} in a log line"]


def test_o30_secrets_from_env_picks_credential_names_only() -> None:
    env = {"OPENAI_API_KEY": SECRET, "HF_TOKEN": "hf_abcdefghij", "HOME": "/root/home/dir", "DEBUG": "1"}
    assert secrets_from_env(env) == {SECRET, "hf_abcdefghij"}


def test_o30_short_values_do_not_shred_text() -> None:
    assert redact("a 1 true text", secrets=["1", "true"]) == "a 1 true text"


def test_o30_ordinary_content_kept() -> None:
    body = {"messages": [{"role": "user", "content": "quote for ACME in CNY"}], "tools": [], "token_count": 4}
    assert redact(body, secrets=[SECRET]) == body

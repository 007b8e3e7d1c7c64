"""Redaction (O-30, Q-20): keys, bearer tokens, Authorization values and known secrets never survive."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models import (
    REDACTED,
    ModelOutput,
    _redact,
    redact,
    redact_owned,
    redacted_from_json,
    redacted_json,
    secrets_from_env,
)
from harness.models._capture import body_pieces, body_text
from harness.models._redact import (
    _FOLDS_TO_ASCII,
    _SENSITIVE_KEY_IN_JSON,
    _SENSITIVE_KEYS,
    _clean,
    mark_scanned,
    needs_no_redaction,
    redact_text,
    redacted_json_text,
    scanned_clean,
)

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


# --- the fast walk redacts exactly what the plain definition does ----------------------------------------
_PIECES = st.sampled_from([SECRET, "sk-" + "a" * 14, "AIza" + "b" * 31, "Bearer abcdefgh1", "bearer\nabcdefgh12",
                           "\n", '"', "tASK-", "ok", "", "é", "x" * 8, "BEARER x", "\u212aey", "s", "k-"])
_TEXT = st.lists(_PIECES, max_size=4).map("".join)
_KEYS = st.sampled_from(["content", "api_key", "Authorization", "X-API-KEY", "cookie", "n", "role", "tools", SECRET,
                         "cacheKey", "api_\u212aey", "PASSWORD", "set-cookie", 'x"api_key', "monkey", "ſecret"])
_TREE = st.recursive(
    st.one_of(_TEXT, st.integers(), st.floats(allow_nan=False), st.none(), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(_KEYS, inner, max_size=3),
                            st.dictionaries(st.integers(0, 3), inner, max_size=2)),
    max_leaves=12)


def _reference(obj: object, secrets: list[str]) -> object:
    """O-30 as written: credential keys whole, known secrets and key shapes inside every string."""
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, Mapping):
        return {k: REDACTED if isinstance(k, str) and _SENSITIVE_KEYS.match(k) and v not in (None, "")
                else _json_form(_reference(v, secrets)) if k == "tools" and type(v) is list
                else _reference(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        items = [_reference(v, secrets) for v in obj]
        return items if isinstance(obj, list) else tuple(items)
    return obj


def _json_form(value: object) -> object:
    """Tool schemas come back in their JSON form (tuples as lists, keys as text)."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return value


@settings(max_examples=300, deadline=None)
@given(tree=_TREE)
def test_o30_fast_walk_equals_the_plain_definition(tree: object) -> None:
    out = redact(tree, [SECRET])
    assert out == _reference(tree, [SECRET])
    assert type(out) is type(tree)


@settings(max_examples=400, deadline=None)
@given(tree=_TREE, secret=st.sampled_from([SECRET, 'sk"quote\\d\n', "ordinary-long"]))
def test_o30_redacted_json_is_the_json_of_redact(tree: object, secret: str) -> None:
    """One encoding when nothing needs redacting, the walk otherwise: the same text either way."""
    assert redacted_json(tree, [secret]) == json.dumps(redact(tree, [secret]), ensure_ascii=False)
    wrapped = {"request": {"messages": [{"role": "user", "content": tree}]}, "cacheKey": None}
    assert redacted_json(wrapped, [secret]) == json.dumps(redact(wrapped, [secret]), ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(tree=_TREE, secret=st.sampled_from([SECRET, 'sk"quote\\d\n', "ordinary-long"]))
def test_o30_a_captured_body_decoded_and_redacted_once_equals_redact(tree: object, secret: str) -> None:
    """The adapter's path (the capture's JSON text, decoded and redacted with no walk when clean) and its
    raw response (a value it owns, kept when clean) give what redact gives on the JSON form."""
    wrapped = {"model": "m", "messages": [{"role": "user", "content": tree}], "api_key": secret}
    text = json.dumps(wrapped, default=str, ensure_ascii=False)
    form = json.loads(text)
    assert redacted_from_json(text, [secret]) == redact(form, [secret])
    owned = json.loads(text)
    out = redact_owned(owned, [secret])
    assert out == redact(form, [secret])
    if out is owned:  # kept only when nothing in it changes (a false alarm of the scan walks, equally right)
        assert out == form
    if out != form:
        assert out is not owned


@settings(max_examples=400, deadline=None)
@given(tree=_TREE, secret=st.sampled_from([SECRET, 'sk"quote\\d\n', "ordinary-long"]))
def test_o30_a_captured_body_redacted_as_text_is_the_json_of_redact(tree: object, secret: str) -> None:
    """The body kept as text (the snapshot splices it): what redact of its decoded form encodes to, byte for byte;
    the secret planted in a message and under ``api_key`` never passes."""
    wrapped = {"model": "m", "messages": [{"role": "user", "content": tree}, {"role": "user", "content": secret}],
               "api_key": secret}
    text = json.dumps(wrapped, default=str, ensure_ascii=False)
    out = redacted_json_text(text, [secret])
    assert out == json.dumps(redact(json.loads(text), [secret]), ensure_ascii=False)
    decoded = json.loads(out)
    assert decoded["messages"][1]["content"] == REDACTED and decoded["api_key"] == REDACTED


@settings(max_examples=300, deadline=None)
@given(tree=_TREE, secret=st.sampled_from([SECRET, 'sk"quote\\d\n', "ordinary-long", "中文-secret-é"]),
       kept=st.sampled_from([0, 128]))
def test_o30_a_captured_body_scanned_by_its_pieces_is_the_json_of_redact(tree: object, secret: str,
                                                                          kept: int) -> None:
    """The adapter's path: the capture's pieces, each scanned once per content and secrets (every piece kept when
    ``kept`` is 0), give what redact of the body's decoded form encodes to, byte for byte, also when a piece found
    clean for other secrets holds the secret now given; the secret planted in a message never passes."""
    body = {"model": "m", "messages": [{"role": "user", "content": tree}, {"role": "user", "content": "x" * 150},
                                       {"role": "user", "content": f"key {secret} " + "y" * 150}],
            "tools": [{"type": "function", "function": {"name": "t", "description": tree}}], "max_tokens": tree}
    clean = {**body, "messages": body["messages"][:2]}
    previous = _redact._KEPT_PIECE
    _redact._KEPT_PIECE = kept
    try:
        for value, secrets in ((clean, ["other-secret-long"]), (body, ["other-secret-long"]), (body, [secret]),
                               (clean, [secret]), (body, [secret])):
            text = body_text(value)
            out = redacted_json_text(text, secrets, body_pieces(value))
            assert out == json.dumps(redact(json.loads(text), secrets), ensure_ascii=False)
            if secrets == [secret] and value is body:
                assert json.loads(out)["messages"][2]["content"] == f"key {REDACTED} " + "y" * 150
    finally:
        _redact._KEPT_PIECE = previous


def test_o30_a_clean_body_as_text_is_kept_and_a_dirty_one_redacted() -> None:
    text = json.dumps({"messages": [{"role": "user", "content": "plain 中文"}]}, ensure_ascii=False)
    assert redacted_json_text(text, [SECRET]) is text  # neither decoded nor encoded
    dirty = json.dumps({"messages": [{"role": "user", "content": "中文 key " + SECRET}]}, ensure_ascii=False)
    assert redacted_json_text(dirty, [SECRET]) == json.dumps(
        {"messages": [{"role": "user", "content": "中文 key " + REDACTED}]}, ensure_ascii=False)


def test_o30_a_body_found_clean_is_scanned_again_for_the_secrets_it_was_not_scanned_for() -> None:
    """The snapshot asks about the very text the adapter kept: a secret only the snapshot knows is still found."""
    other = "snapshot-only-secret-42"
    text = json.dumps({"messages": [{"role": "user", "content": f"中文 {other}"}]}, ensure_ascii=False)
    assert redacted_json_text(text, [SECRET]) is text
    assert needs_no_redaction(text, [SECRET])
    assert not needs_no_redaction(text, [SECRET, other]) and not needs_no_redaction(text, [other])
    copy = "".join(list(text))  # the same text, another object: scanned whole
    assert copy is not text and not needs_no_redaction(copy, [other])
    dirty = json.dumps({"note": "use sk-" + "a" * 20}, ensure_ascii=False)
    assert redacted_json_text(dirty, [SECRET]) != dirty and not needs_no_redaction(dirty, [])


def test_o30_a_body_a_worker_scanned_is_still_searched_for_every_secret_of_the_snapshot() -> None:
    """A model worker's clean body (``mark_scanned`` in the runner): the snapshot looks for all its own secrets."""
    text = json.dumps({"messages": [{"role": "user", "content": f"中文 {SECRET}"}]}, ensure_ascii=False)
    assert not scanned_clean(text)
    mark_scanned(text)
    assert scanned_clean(text) and needs_no_redaction(text, []) and not needs_no_redaction(text, [SECRET])
    assert not scanned_clean(None) and not scanned_clean("".join(list(text)))


def test_e11_an_output_written_with_the_body_decoded_reads_as_its_text() -> None:
    """A response cache entry written before the body was kept as text: the same body, as the snapshot wrote it."""
    body = {"model": "m", "messages": [{"role": "user", "content": "é 中文"}], "temperature": 0.0}
    old = ModelOutput.model_validate({"content": "ok", "provider_request": body})
    assert old.provider_request_json == json.dumps(body, ensure_ascii=False) and old.provider_request == body
    assert ModelOutput.model_validate({"content": "ok", "provider_request": None}).provider_request is None


def test_o30_a_clean_captured_body_is_not_walked() -> None:
    text = json.dumps({"messages": [{"role": "user", "content": "plain"}]}, ensure_ascii=False)
    assert redacted_from_json(text, [SECRET]) == {"messages": [{"role": "user", "content": "plain"}]}
    dirty = json.dumps({"messages": [{"role": "user", "content": "key " + SECRET}]}, ensure_ascii=False)
    assert redacted_from_json(dirty, [SECRET]) == {"messages": [{"role": "user", "content": "key " + REDACTED}]}


def test_o30_redacted_json_catches_each_trigger_alone() -> None:
    """Each trigger alone, in an ASCII text and in one that is not (the scan tests the fold characters only there)."""
    for other in ("plain", "中文 é"):
        triggers: list[dict[str, object]] = [
            {"content": "use sk-" + "a" * 20}, {"content": "AIza" + "b" * 33}, {"h": "BeArEr abcdefghij"},
            {"Api-Key": "x"}, {"client_secret": 1}, {"api_\u212aey": "v"}, {"note": SECRET + "!"},
            {"note": f'x{SECRET}"'}]
        for trigger in triggers:
            value = {"other": other, **trigger}
            out = json.loads(redacted_json(value, [SECRET]))
            assert out == redact(value, [SECRET]) and out != value, value
            assert not _clean(json.dumps(value, ensure_ascii=False), (SECRET,)), value


def _clean_in_bytes(text: str, secrets: tuple[str, ...]) -> bool:
    """The scan as first written, every test on the UTF-8 bytes: ``_clean`` must answer as it does."""
    data = text.encode()
    if b"sk-" in data or b"AIza" in data:
        return False
    low = data.lower()
    if b"bearer" in low or any(json.dumps(s, ensure_ascii=False)[1:-1].encode() in data for s in secrets):
        return False
    if any(c.encode() in data for c in "\u0130\u0131\u017f\u212a"):
        return False
    return _SENSITIVE_KEY_IN_JSON.search(low) is None


@settings(max_examples=400, deadline=None)
@given(tree=_TREE, secret=st.sampled_from([SECRET, 'sk"quote\\d\n', "ordinary-long", "中文-secret-é"]),
       noise=st.text(max_size=12))
def test_o30_the_scan_answers_as_the_scan_in_bytes(tree: object, secret: str, noise: str) -> None:
    try:
        text = json.dumps([tree, noise], default=str, ensure_ascii=False)
        text.encode()
    except (TypeError, ValueError, UnicodeEncodeError):  # keys JSON cannot write; lone surrogates
        return
    assert _clean(text, (secret,)) == _clean_in_bytes(text, (secret,))
    planted = json.dumps([tree, noise + secret], default=str, ensure_ascii=False)
    assert _clean(planted, (secret,)) is False  # the scan never passes a text that holds the secret


def test_o30_secrets_from_env_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan of ``os.environ`` is kept until it changes: a variable set, changed or removed is seen at once."""
    monkeypatch.delenv("HARNESS_TEST_TOKEN", raising=False)
    assert SECRET not in secrets_from_env()
    monkeypatch.setenv("HARNESS_TEST_TOKEN", SECRET)
    assert SECRET in secrets_from_env()
    monkeypatch.setenv("HARNESS_TEST_TOKEN", SECRET + "-changed")
    assert SECRET + "-changed" in secrets_from_env() and SECRET not in secrets_from_env()
    found = secrets_from_env()
    found.clear()  # a copy: the caller's to change
    assert SECRET + "-changed" in secrets_from_env()
    monkeypatch.delenv("HARNESS_TEST_TOKEN")
    assert SECRET + "-changed" not in secrets_from_env()


def test_o30_only_four_characters_fold_to_ascii_letters() -> None:
    """``redacted_json`` falls back to the walk on these: a key spelled with one may match ``_SENSITIVE_KEYS``."""
    import re
    import sys

    letter = re.compile("(?i)[a-z]")
    folding = [c for c in map(chr, range(128, sys.maxunicode + 1)) if letter.match(c)]
    assert "".join(folding) == _FOLDS_TO_ASCII
    lowered = [c for c in map(chr, range(128, sys.maxunicode + 1)) if any(x in "bear" for x in c.lower())]
    assert lowered == []  # so bytes.lower finds every "bearer" that str.lower makes

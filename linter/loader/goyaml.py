"""Scalars and keys as Kubernetes reads them: go-yaml v2's resolver, then sigs.k8s.io/yaml's JSON.

kubectl and the API server decode YAML with sigs.k8s.io/yaml: go-yaml v2 reads each scalar
into a Go value, then the document is converted to JSON. This module reproduces what that
pipeline makes of one scalar (shared/reference/yaml.md), measured against kubectl 1.32:

- YAML 1.1 booleans include ``y``/``n``; ``0755`` is octal, ``0o17`` is 15, ``0x_1F`` is 31;
  ``1:30`` is the string "1:30" (go-yaml has no sexagesimal numbers); ``=`` is a string.
- An integer that does not fit 64 bits becomes a float when written in decimal digits, else
  stays a string; a float that overflows (``1e400``) is a string. Numbers are never parsed
  with Python's ``int`` on more than 20 digits (no 4,300-digit limit, no quadratic cost).
- Timestamps stay the original string. ``.inf``/``.nan`` are floats JSON cannot hold: kubectl
  refuses the file (:class:`DecodeError`).
- A tag is never executed: unknown tags (``!Ref``, ``!!python/...``) leave the scalar a
  string, ``!!binary`` is base64-decoded, ``!!str``/``!!int``/``!!float``/``!!bool``/``!!null``
  convert or fail as go-yaml does.
- Mapping keys become JSON strings (``true``, ``3``, ``1.5``); a null or collection key is
  refused.
"""
from __future__ import annotations

import binascii
import math
import re
import struct
from typing import Any

YAML_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, BINARY, TIMESTAMP, MERGE = (
    YAML_TAG + t for t in ("str", "int", "float", "bool", "null", "binary", "timestamp", "merge"))
_RESOLVABLE = frozenset({STR, INT, FLOAT, BOOL, NULL, TIMESTAMP})


class DecodeError(ValueError):
    """kubectl refuses the file with this message (``error converting YAML to JSON``)."""


class _Merge:
    """The ``<<`` merge key."""

    def __repr__(self) -> str:
        return "<<"


MERGE_KEY = _Merge()

# go-yaml's resolveTable: the first character decides whether a plain scalar may be anything
# but a string. Everything else is a string without further work (the common case).
_SIGN_OR_DIGIT = frozenset("+-0123456789")
HINTED = frozenset("+-0123456789yYnNtTfFoO~.<")
_MAP: dict[str, Any] = {}
for _values, _result in (
        (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
        (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
        (("", "~", "null", "Null", "NULL"), None),
        ((".nan", ".NaN", ".NAN"), math.nan),
        ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
        (("-.inf", "-.Inf", "-.INF"), -math.inf),
        (("<<",), MERGE_KEY)):
    for _value in _values:
        _MAP[_value] = _result

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?\Z")
_BASE64 = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
                        r"(?:(?:[Tt]| )[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?"
                        r"(?:Z|[-+][0-9]{2}:[0-9]{2})?)?\Z")
_PREFIXES = {"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}
_DIGITS = {16: "0123456789abcdefABCDEF", 8: "01234567", 2: "01", 10: "0123456789"}
_INT64, _UINT64 = 1 << 63, 1 << 64
_MAX_INT_DIGITS = 70  # more digits (after leading zeros) never fit 64 bits, even in binary

_cache: dict[str, Any] = {}


def may_not_be_string(text: str) -> bool:
    """Whether go-yaml could read this untagged plain scalar as anything but a string."""
    if not text or text[0] in _SIGN_OR_DIGIT or text in _MAP:
        return True
    return text[0] == "." and _DOT_FLOAT.match(text) is not None


def resolve_plain(text: str) -> Any:
    """The value of an untagged plain scalar (bool, None, int, float, str or MERGE_KEY)."""
    if not text or text[0] not in HINTED:
        return text if text else None
    cached = _cache.get(text, _cache)
    if cached is not _cache:
        return cached
    value = _resolve(text, plain=True)
    if len(text) < 64 and len(_cache) < 100_000:
        _cache[text] = value
    return value


def _resolve(text: str, plain: bool) -> Any:
    if text in _MAP:
        return _MAP[text]
    first = text[:1]
    if first == ".":
        return float(text) if _DOT_FLOAT.match(text) else text
    if first not in _SIGN_OR_DIGIT:
        return text
    if plain and _TIMESTAMP.match(text):
        return text  # go-yaml reads it as a timestamp, then hands the original text on
    compact = text.replace("_", "")
    number = _go_parse_int(compact)
    if number is not None:
        return number
    if _YAML_STYLE_FLOAT.match(compact):
        value = float(compact)
        return text if math.isinf(value) else value  # strconv.ParseFloat: out of range
    return text


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), then ParseUint: None when it does not fit 64 bits."""
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in "+-" else text
    base = _PREFIXES.get(body[:2])
    if base is not None:
        body = body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, body = 8, body[1:]
    else:
        base = 10
    if not body or any(c not in _DIGITS[base] for c in body):
        return None
    if len(body.lstrip("0")) > _MAX_INT_DIGITS:
        return None
    value = int(body, base)
    if negative:
        return -value if value <= _INT64 else None
    if text[:1] == "+" and value >= _INT64:
        return None  # ParseUint takes no sign
    return value if value < _UINT64 else None


def resolve_tagged(tag: str, text: str) -> Any:
    """A scalar with an explicit tag. Raises DecodeError where kubectl refuses it."""
    if tag == BINARY:
        return decode_binary(text)
    if tag == MERGE and text == "<<":
        return MERGE_KEY
    if tag not in _RESOLVABLE:
        return text  # unknown and application tags are ignored: the scalar stays a string
    if tag == STR:
        return text
    value = _resolve(text, plain=(tag == TIMESTAMP)) if text not in ("",) else None
    if value is MERGE_KEY:
        value = text
    if tag == FLOAT and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if _tag_of(value, text) != tag:
        raise DecodeError(f"cannot decode !!{_short(_tag_of(value, text))} `{text[:40]}` as a !!{_short(tag)}")
    return value


def _tag_of(value: Any, text: str) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    return TIMESTAMP if _TIMESTAMP.match(text) else STR


def _short(tag: str) -> str:
    return tag[len(YAML_TAG):] if tag.startswith(YAML_TAG) else tag


def decode_binary(text: str) -> str:
    """``!!binary``: base64 (line breaks allowed), bytes read as UTF-8 like Go's JSON encoder."""
    compact = text.replace("\n", "").replace("\r", "")
    try:
        data = _strict_base64(compact.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise DecodeError("!!binary value contains invalid base64 data") from None
    return data.decode("utf-8", "replace")


def _strict_base64(data: bytes) -> bytes:
    """Base64 as Go's StdEncoding reads it: only the alphabet, padded to whole quads, nothing
    after the padding. Python's ``strict_mode`` (3.11+ only) still accepts ``QUJD=``, which
    kubectl refuses (measured with kubectl 1.32)."""
    if not _BASE64.fullmatch(data):
        raise binascii.Error("invalid base64 data")
    return binascii.a2b_base64(data)


def json_number_problem(value: float) -> str | None:
    """JSON has no infinity or NaN: kubectl refuses the file (`json: unsupported value`)."""
    if math.isinf(value) or math.isnan(value):
        return f"json: unsupported value: {'NaN' if math.isnan(value) else ('+Inf' if value > 0 else '-Inf')}"
    return None


def json_key(key: Any) -> str:
    """A scalar mapping key as sigs.k8s.io/yaml writes it into JSON. Raises DecodeError."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_format_float32(key)
    raise DecodeError(f"unsupported map key of type: {'null' if key is None else type(key).__name__}")


def _go_format_float32(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), as sigs.k8s.io/yaml converts float keys."""
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if math.isnan(value):
        return ".nan"
    single = struct.unpack("f", struct.pack("f", value))[0] if abs(value) < 3.4e38 else value
    for precision in range(1, 10):
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, exponent = text.split("e")
    exp = int(exponent)
    digits = mantissa.replace(".", "").replace("-", "").rstrip("0") or "0"
    sign = "-" if single < 0 else ""
    if exp < -4 or exp >= 6:  # strconv: shortest precision decides with precision 6
        return _go_exponent(sign, digits, exp)
    if exp >= 0:
        whole = (digits + "0" * max(0, exp + 1 - len(digits)))[:exp + 1]
        fraction = digits[exp + 1:]
        return sign + whole + ("." + fraction if fraction else "")
    return sign + "0." + "0" * (-exp - 1) + digits


def _go_exponent(sign: str, digits: str, exp: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"

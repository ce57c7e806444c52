"""What keeps the studio safe to run: tokens, origins, hosts and paths.

Every request carries a token (``?token=`` or the ``X-Token`` header): the studio's own,
printed at start, or one seat's secret token of a table. The browser the studio starts is
given no token (a command line is readable by every local user): it opens a one-time code
(``OneTimeCodes``) that the studio exchanges, once and within a minute, for the token in a
cookie (``HttpOnly``, ``SameSite=Strict``). A page on another origin cannot
drive the studio: a request whose ``Origin`` is not the studio's own, or that the browser
marks as cross-site, is refused, and while the studio listens on loopback a ``Host`` that
is not a loopback name is refused too (a rebound DNS name). Files are read only
inside the folder the studio serves: no ``..``, no absolute path, no link that leads out;
they are written through no link at all (``recycle.studio.writes``).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from pathlib import Path, PurePosixPath, PureWindowsPath

LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}
MAX_FILE_BYTES = 1_000_000
# a table's deal: a secret no seat can guess or search (a deal number is a seed, and a seat
# that knows or can search the seed knows every hidden card)
DEAL_SECRET_BITS = 128


class Refused(Exception):
    """A request the studio will not serve: ``status`` (a 4xx) and a message in words."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def new_token() -> str:
    """A fresh secret (192 bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def new_deal_secret() -> int:
    """A table's deal: ``DEAL_SECRET_BITS`` bits from the system's secure generator."""
    return secrets.randbits(DEAL_SECRET_BITS)


class OneTimeCodes:
    """Codes that stand for a token once: each is good for one exchange within ``ttl`` seconds."""

    def __init__(self, ttl: float = 60.0):
        self.ttl = ttl
        self.codes: dict[str, tuple] = {}
        self.lock = threading.Lock()

    def new(self, value) -> str:
        """A fresh code (192 bits, URL-safe) for ``value`` (a token and where it opens)."""
        code = new_token()
        with self.lock:
            self.codes[code] = (time.monotonic() + self.ttl, value)
        return code

    def use(self, code: str | None):
        """The value of ``code`` if it is live (None otherwise); it is spent either way."""
        now = time.monotonic()
        with self.lock:
            for known, (until, value) in list(self.codes.items()):
                if until < now:
                    del self.codes[known]
                elif same(code, known):
                    del self.codes[known]
                    return value
        return None


def same(a: str | None, b: str) -> bool:
    """Compare a presented token with a secret in constant time."""
    return a is not None and hmac.compare_digest(a.encode("utf-8", "replace"), b.encode())


def host_name(host: str) -> str:
    """The name part of a Host header (``127.0.0.1:8765`` → ``127.0.0.1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def check_origin(headers, loopback_only: bool) -> None:
    """Refuse a request from a page of another origin (see the module docstring)."""
    host = headers.get("host", "")
    if loopback_only and host_name(host) not in LOOPBACK_NAMES:
        raise Refused(403, f"the studio answers only to a loopback address, not to the host {host!r}")
    origin = headers.get("origin")
    if origin is not None and origin != f"http://{host}":
        raise Refused(403, "a page of another origin may not use the studio")
    if headers.get("sec-fetch-site") == "cross-site":
        raise Refused(403, "a cross-site request may not use the studio")


def refuse_path(text: str) -> None:
    """Refuse an empty, absolute or ``..`` path (``Refused``), before any look at the disk."""
    if not text or "\x00" in text:
        raise Refused(400, "a file name is needed")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON's "\udcff"): no file has that name here
        raise Refused(400, "the file name is not UTF-8 text") from None
    if len(text) > 1000:
        raise Refused(400, "the file name is too long")
    pure = PurePosixPath(text)
    if pure.is_absolute() or PureWindowsPath(text).is_absolute() or PureWindowsPath(text).drive:
        raise Refused(403, "an absolute path is not allowed: name a file inside the studio's folder")
    if ".." in pure.parts or ".." in PureWindowsPath(text).parts:
        raise Refused(403, "'..' is not allowed in a path: name a file inside the studio's folder")


def inside(root: Path, text: str, must_exist: bool = True) -> Path:
    """The file ``text`` (a path relative to ``root``) resolved, links followed, if it stays
    inside ``root``; else ``Refused`` (403 for a path that leads out, 404 for a missing file)."""
    refuse_path(text)
    root = root.resolve()
    path = root / text
    try:
        real = path.resolve(strict=must_exist)
    except (FileNotFoundError, NotADirectoryError):
        raise Refused(404, f"no such file: {text}") from None
    except (OSError, RuntimeError) as exc:  # a loop of links, a name the system refuses
        raise Refused(400, f"cannot open {text}: {exc.__class__.__name__}") from None
    if real != root and root not in real.parents:
        raise Refused(403, f"{text} leads outside the studio's folder")
    if must_exist and not real.is_file():
        raise Refused(400, f"{text} is not a file")
    return real


def read_text(root: Path, text: str) -> str:
    """The UTF-8 text of the file ``text`` inside ``root`` (``Refused`` otherwise)."""
    path = inside(root, text)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise Refused(413, f"{text} is larger than {MAX_FILE_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Refused(415, f"{text} is not UTF-8 text") from None

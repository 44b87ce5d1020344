"""The two-hundred-and-forty-first batch's scenarios (tests/fixtures/corpus/fresh240): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind241.py OUT

Themes: serving over TLS as a person sets it up, certificates made with `openssl` under
/tmp/blind241/tls (a company CA, a server certificate it signs for 127.0.0.1 and localhost), each
run given one thing a person gets wrong. vLLM (VLLM_BASE's settings): --ssl-keyfile naming a key
from another `openssl` run, not the certificate's; the right key kept with a passphrase (vLLM has
no password flag); --ssl-cert-reqs 2 (client certificates required) with no --ssl-ca-certs,
met by ordinary HTTPS clients; a good TLS setup sent plain http:// before https://. SGLang
(--device cpu --model-impl transformers): --ssl-certfile naming a PEM chain in the wrong order
(the CA first); the certificate as a DER file; a self-signed certificate served with
--ssl-ca-certs naming the company CA that did not sign it (SGLang checks itself against it).

Earlier batches already had (not repeated): --ssl-keyfile/--ssl-certfile naming missing files
(67th), PEM files whose bodies are junk (70th), a folder (85th), --ssl-keyfile without
--ssl-certfile (70th for SGLang, 202nd for vLLM), SSL_CERT_FILE naming a missing CA bundle for
hub downloads (91st).

Recorded 2026-12-07 in one invocation (raw1, the table in order), waiting turns with two other
helpers' recorders; each scenario once. About 7.5 minutes of recording (vLLM 52+46+62+57 s,
SGLang 67+43+175 s). 7 kept (final files hr101-hr107), none dropped.

What the engines did. Neither engine checks a TLS file's contents up front: both build the
whole engine and fail only when uvicorn makes its SSL context. vLLM: the mismatched key ends in
`ssl.SSLError: [X509: KEY_VALUES_MISMATCH] key values mismatch` after `Starting vLLM server on
https://...` and the route list; the passphrase key prints OpenSSL's bare `Enter PEM pass
phrase:` twice (no terminal) and ends in `OSError: [Errno 22] Invalid argument` from
load_cert_chain - both crashed, the engine shut down first; --ssl-cert-reqs 2 without a CA is
taken silently, the server comes up and every client handshake is refused below HTTP, so the log
ends on `Application startup complete.` with no request line (ready, the fault not showing);
plain HTTP to the TLS port leaves no line at all and the HTTPS requests after it are answered 200
(ready, serving). SGLang: after `Engine startup timings` and `SSL enabled: certfile=...`, the
wrong-order chain fails with the same KEY_VALUES_MISMATCH and the DER file with `ssl.SSLError:
[SSL] PEM lib`, each followed by its teardown (`Subprocess detokenizer ... crashed with exit code
-9`, kill_process_tree); the self-signed certificate checked against the company CA starts
uvicorn (`Uvicorn running on https://...`), retries its own warm-up GET /model_info silently for
two minutes and ends `Initialization failed. warmup error: ... CERTIFICATE_VERIFY_FAILED]
certificate verify failed: self-signed certificate`. Crashed: hr101, hr102, hr105, hr106, hr107;
ready: hr103 (ready), hr104 (serving); none hung.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind241")
TLS = ROOT / "tls"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
SAN = "subjectAltName=IP:127.0.0.1,DNS:localhost"


def _openssl(*args: str, stdin: bytes | None = None) -> None:
    subprocess.run(["openssl", *args], check=True, input=stdin, capture_output=True)


def _setup() -> None:
    """The certificates a person makes: a company CA, a server key and a certificate it signs
    (127.0.0.1 and localhost), and the broken variants the scenarios use."""
    TLS.mkdir(parents=True, exist_ok=True)
    if (TLS / ".complete").exists():
        return
    t = str(TLS)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{t}/ca.key",
             "-out", f"{t}/ca.pem", "-days", "30", "-subj", "/CN=blind241 company CA")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{t}/server.key", "-out",
             f"{t}/server.csr", "-subj", "/CN=localhost", "-addext", SAN)
    _openssl("x509", "-req", "-in", f"{t}/server.csr", "-CA", f"{t}/ca.pem", "-CAkey",
             f"{t}/ca.key", "-CAcreateserial", "-out", f"{t}/server.pem", "-days", "30",
             "-copy_extensions", "copy")
    # another key, as from an earlier `openssl req` run: does not match server.pem
    _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
             f"{t}/other.key")
    # the server key kept with a passphrase (as `openssl genrsa -aes256` leaves it)
    _openssl("pkey", "-in", f"{t}/server.key", "-aes256", "-passout", "pass:s3cret", "-out",
             f"{t}/server-enc.key")
    # a chain file in the wrong order: the CA first, the server's own certificate after it
    (TLS / "chain-wrong-order.pem").write_bytes((TLS / "ca.pem").read_bytes()
                                                + (TLS / "server.pem").read_bytes())
    # the certificate as DER (binary), as Windows tools and some portals hand it out
    _openssl("x509", "-in", f"{t}/server.pem", "-outform", "DER", "-out", f"{t}/server.der")
    # a self-signed certificate (its own key), not signed by the company CA
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{t}/self.key",
             "-out", f"{t}/self.pem", "-days", "30", "-subj", "/CN=localhost", "-addext", SAN)
    (TLS / ".complete").write_text("")


_setup()


def _tls(ctx: Ctx, path: str, body: dict | None, context: ssl.SSLContext | None,
         timeout: float = 60) -> tuple[int, bytes]:
    """A request over HTTPS to the run's port (status 0: it did not get through)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"https://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""
    except (OSError, TimeoutError):
        return 0, b""


def trusting_client() -> ssl.SSLContext:
    """A client that trusts the company CA (the proper client of a CA-signed server)."""
    return ssl.create_default_context(cafile=str(TLS / "ca.pem"))


def tls_complete(ctx: Ctx, n: int = 2, context: ssl.SSLContext | None = None) -> None:
    context = context or trusting_client()
    status, raw = _tls(ctx, "/v1/models", None, context, timeout=10)
    try:
        name = json.loads(raw)["data"][0]["id"] if status == 200 else "model"
    except (ValueError, KeyError, IndexError):
        name = "model"
    for i in range(n):
        _tls(ctx, "/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 16},
             context)


def ends_or_serves_tls(ctx: Ctx) -> None:
    """Let the run end by itself; if it comes up, two good HTTPS completions and a pause."""
    if up(ctx, 240) and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 150)
        tls_complete(ctx, 2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def plain_http_then_tls(ctx: Ctx) -> None:
    """A client that forgot the s: plain HTTP to the TLS port, then good HTTPS requests."""
    if up(ctx, 240):
        ctx.post("/v1/completions", {"model": "model", "prompt": "fox", "max_tokens": 8},
                 timeout=15)
        ctx.post("/v1/models", {}, timeout=15)
        tls_complete(ctx, 2)
        time.sleep(10)


def no_client_cert_then_tls(ctx: Ctx) -> None:
    """Client certificates required: an ordinary HTTPS client (no certificate of its own) asks,
    then one that skips verification altogether."""
    if up(ctx, 240):
        tls_complete(ctx, 2)
        loose = ssl.create_default_context()
        loose.check_hostname = False
        loose.verify_mode = ssl.CERT_NONE
        tls_complete(ctx, 1, loose)
        time.sleep(10)


def sg_own_check_refused(ctx: Ctx) -> None:
    """SGLang checks its own server over HTTPS against --ssl-ca-certs: let it run its course
    (its check retries for two minutes); if it does come up, two completions."""
    found = ctx.wait_any([SG_READY], 330)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        loose = ssl.create_default_context()
        loose.check_hostname = False
        loose.verify_mode = ssl.CERT_NONE
        tls_complete(ctx, 2, loose)
        time.sleep(10)
    else:
        linger(ctx, 20)


def _files(cert: str, key: str) -> list[str]:
    return ["--ssl-certfile", str(TLS / cert), "--ssl-keyfile", str(TLS / key)]


SCENARIOS = [
    Scenario("v-ssl-key-mismatch", "vllm",
             "--ssl-keyfile naming a key from another `openssl` run, not the key of "
             "--ssl-certfile's certificate",
             [*VLLM_BASE, *_files("server.pem", "other.key")], act=ends_or_serves_tls),
    Scenario("v-ssl-key-passphrase", "vllm",
             "--ssl-keyfile naming a key encrypted with a passphrase (vLLM has no flag for the "
             "password)",
             [*VLLM_BASE, *_files("server.pem", "server-enc.key")], act=ends_or_serves_tls),
    Scenario("v-ssl-cert-reqs-no-ca", "vllm",
             "--ssl-cert-reqs 2 (client certificates required) with no --ssl-ca-certs; "
             "ordinary HTTPS clients",
             [*VLLM_BASE, *_files("server.pem", "server.key"), "--ssl-cert-reqs", "2"],
             act=no_client_cert_then_tls),
    Scenario("v-plain-http-to-tls-port", "vllm",
             "a good TLS setup, and a client sending plain http:// to the TLS port before "
             "https:// requests",
             [*VLLM_BASE, *_files("server.pem", "server.key")], act=plain_http_then_tls),
    Scenario("s-ssl-chain-wrong-order", "sglang",
             "--ssl-certfile naming a PEM chain in the wrong order (the CA's certificate first, "
             "the server's after it)",
             [*SG, *_files("chain-wrong-order.pem", "server.key")], act=ends_or_serves_tls),
    Scenario("s-ssl-der-cert", "sglang",
             "--ssl-certfile naming the certificate as a DER (binary) file, not PEM",
             [*SG, *_files("server.der", "server.key")], act=ends_or_serves_tls),
    Scenario("s-ssl-self-signed-ca-refused", "sglang",
             "a self-signed certificate served with --ssl-ca-certs naming the company CA "
             "that did not sign it (clients checking against that CA refuse it)",
             [*SG, *_files("self.pem", "self.key"), "--ssl-ca-certs", str(TLS / "ca.pem")],
             act=sg_own_check_refused),
]

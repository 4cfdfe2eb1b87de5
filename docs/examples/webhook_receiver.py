"""A webhook receiver that checks engine's signature: `python3 webhook_receiver.py [port]` with the
secret in ENGINE_WEBHOOK_SECRET. It answers each call, prints its type, and exits after the first
valid call: 0 when the signature was valid, 1 when not."""
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def verify(raw_body: bytes, headers, secret: str, tolerance_seconds: int = 300) -> bool:
    """True when raw_body was signed with secret less than tolerance_seconds ago."""
    timestamp = headers.get("X-Engine-Timestamp", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance_seconds:
        return False
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get("X-Engine-Signature", ""), "sha256=" + digest)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        valid = verify(raw_body, self.headers, os.environ.get("ENGINE_WEBHOOK_SECRET", ""))
        self.send_response(204 if valid else 401)
        self.end_headers()
        event = json.loads(raw_body)
        print(f"{event['type']}: {event['status']} {event.get('output') or ''}", flush=True)
        self.server.result = 0 if valid else 1

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8787), Receiver)
server.result = None
while server.result is None:
    server.handle_request()
sys.exit(server.result)

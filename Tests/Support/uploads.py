"""A server for upload tests: it reads each request body as it arrives, hashes it with SHA-256 without keeping
it, and prints one JSON line per request to standard error: when the body starts ("event": "start") and when
it ends ("event": "end", with the length announced, the bytes received, the digest and the Idempotency-Key).
A query's "gate" names a file: after the first 64 KiB the body waits for it to exist. A query's "rate" reads at
most that many bytes a second. A query's "ifmatch" answers 412 to a request whose If-Match is not that value.
Usage: uploads.py HOST [CERT KEY]; prints the port on standard output."""
import hashlib, http.server, json, os, socket, ssl, sys, time, urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def record(self, **fields):
        fields.update(method=self.command, path=self.path, key=self.headers.get("Idempotency-Key"),
                      ifmatch=self.headers.get("If-Match"),
                      ctype=self.headers.get("Content-Type"), at=time.time())
        sys.stderr.write(json.dumps(fields) + "\n")
        sys.stderr.flush()

    def body(self):
        length = int(self.headers.get("Content-Length", "0"))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        gate = query.get("gate", [None])[0]
        rate = float(query.get("rate", ["0"])[0])
        began = time.time()
        self.record(event="start", length=length)
        digest, received = hashlib.sha256(), 0
        while received < length:
            chunk = self.rfile.read(min(length - received, 64 * 1024))
            if not chunk:
                break
            digest.update(chunk)
            received += len(chunk)
            while gate and not os.path.exists(gate):
                time.sleep(0.01)
            if rate > 0:
                time.sleep(max(0.0, received / rate - (time.time() - began)))
        self.record(event="end", length=length, received=received, sha256=digest.hexdigest())
        return received == length

    def do_any(self):
        if not self.body():
            self.close_connection = True
            return
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        wanted = query.get("ifmatch", [None])[0]
        self.send_response(412 if wanted is not None and self.headers.get("If-Match") != wanted else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_POST = do_PATCH = do_any

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, 0), Handler)


server = Server(sys.argv[1])
if len(sys.argv) > 3:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()

"""A server that answers the way real, imperfect servers do, for spool's regression tests.

Usage: quirks.py HOST [CERT KEY]. Listens on HOST (127.0.0.1 or ::1) at a free port, over TLS when a
certificate and key are given, prints the port, then serves until killed. Each request is logged as one
line to stderr: "METHOD PATH IDEMPOTENCY-KEY START-SECONDS". By path:
  /trailers      200, chunked, with trailers after the body
  /big-headers   200 with about 100 KiB of headers (accepted by spool)
  /huge-headers  200 with about 400 KiB of headers (more than spool keeps: filed)
  /204-body      204 that carries a body anyway (the connection must not be reused)
  /slow          200 after 2 seconds
  /drop...       every 4th such request: the connection is closed without an answer (an idle timeout
                 meeting a new request); the others 204
  anything else  204
"""
import http.server, os, socketserver, socket, ssl, sys, threading, time

lock = threading.Lock()
counter = [0]

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        started = time.time()
        length = int(self.headers.get("Content-Length", 0) or 0)
        if length:
            self.rfile.read(length)
        # One write(2) per line: lines from concurrent threads never interleave.
        line = "%s %s %s %.3f\n" % (self.command, self.path, self.headers.get("Idempotency-Key", "-"), started)
        os.write(2, line.encode())
        if self.path == "/trailers":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Trailer", "X-Checksum")
            self.end_headers()
            self.wfile.write(b"5\r\nhello\r\n0\r\nX-Checksum: 42\r\n\r\n")
        elif self.path in ("/big-headers", "/huge-headers"):
            count = 100 if self.path == "/big-headers" else 400
            self.send_response(200)
            for i in range(count):
                self.send_header("X-Filler-%d" % i, "x" * 1000)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/204-body":
            # Head and stray body in one write, as a server that buffers its whole answer sends them.
            self.wfile.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\nthis body should not be here\r\n")
        elif self.path.startswith("/drop"):
            with lock:
                counter[0] += 1
                drop = counter[0] % 4 == 3
            if drop:
                self.close_connection = True
                return
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path.startswith("/slow"):
            time.sleep(2)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        else:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = handle_any

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True

host = sys.argv[1]
Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
server = Server((host, 0), Handler)
if len(sys.argv) == 4:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()

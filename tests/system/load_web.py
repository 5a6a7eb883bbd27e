"""Keep nginx and the web application behind it busy: keep-alive requests,
a static page and the application's computed answer in turn."""
import http.client
import time

conn = None
while True:
    try:
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", 80, timeout=30)
        for path in ("/", "/app/?n=30000", "/index.nginx-debian.html"):
            conn.request("GET", path)
            conn.getresponse().read()
    except (OSError, http.client.HTTPException):
        conn = None
        time.sleep(0.5)

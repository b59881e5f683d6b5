"""A real SMTP server for tests/inbox_channels.rs: aiosmtpd on 127.0.0.1:PORT,
each message it accepts written whole to OUTDIR/N.eml (written to N.part, then
renamed, so that a file that exists is complete). With CERT and KEY it offers
STARTTLS and refuses mail before it. Prints "ready" once it listens; runs until
killed."""

import os
import ssl
import sys
import time

from aiosmtpd.controller import Controller


class Keep:
    def __init__(self, outdir):
        self.outdir = outdir
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        part = os.path.join(self.outdir, f"{self.count}.part")
        with open(part, "wb") as f:
            f.write(f"X-Envelope-From: {envelope.mail_from}\r\n".encode())
            f.write(f"X-Envelope-To: {','.join(envelope.rcpt_tos)}\r\n".encode())
            f.write(f"X-Tls: {'yes' if session.ssl else 'no'}\r\n".encode())
            f.write(envelope.original_content)
        os.rename(part, os.path.join(self.outdir, f"{self.count}.eml"))
        return "250 Message accepted for delivery"


def main():
    port, outdir = int(sys.argv[1]), sys.argv[2]
    options = {}
    if len(sys.argv) > 4:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        options = {"tls_context": context, "require_starttls": True}
    controller = Controller(Keep(outdir), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print("ready", flush=True)
    while True:
        time.sleep(3600)


main()

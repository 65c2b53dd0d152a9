#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ask a guest that did not finish where its CPUs are.

qemu/monitor.py AFTER SOCKET VMLINUX OUT: after AFTER seconds, if the
QEMU monitor at SOCKET is still there, send it "info registers -a" and
write to OUT, for each vCPU, its PC, the kernel function there
(addr2line on VMLINUX; a module's address stays a number), then the
registers.  boot.sh starts it with the guest, AFTER a little less than
the guest's timeout, and kills it when the guest ends in time: a hang
then leaves more than a silent console.
"""
import os
import re
import socket
import subprocess
import sys
import time


def ask(path, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    out = b""

    def until_prompt():
        nonlocal out
        buf = b""
        end = time.time() + 20
        while b"(qemu)" not in buf and time.time() < end:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf

    until_prompt()
    s.sendall(cmd.encode() + b"\n")
    out = until_prompt()
    s.close()
    text = out.decode(errors="replace").replace("\r", "")
    # The monitor echoes the command with terminal line editing.
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def main():
    after, sock, vmlinux, out = sys.argv[1:5]
    time.sleep(float(after))
    if not os.path.exists(sock):
        return
    regs = ask(sock, "info registers -a")
    with open(out, "w") as f:
        for n, pc in enumerate(re.findall(r"PC=([0-9a-fA-F]{16})", regs)):
            fn = subprocess.run(["aarch64-linux-gnu-addr2line", "-f", "-e",
                                 vmlinux, "0x" + pc], capture_output=True,
                                text=True).stdout.split("\n")[0]
            print(f"vCPU {n}: PC {pc} {fn}", file=f)
        f.write(regs)


if __name__ == "__main__":
    main()

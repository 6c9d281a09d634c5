#!/usr/bin/env python3
"""Datagram-level attacks on a Lightwire UDP server over loopback, for scripts/attack.sh.

Needs root: it sniffs `lo` with an AF_PACKET socket and forges the source address of the
datagrams it sends with a raw IPv4 socket (IP_HDRINCL), which is what an attacker on the path
(sniffing) or off it (forging, blind) can do. Each command prints one line `RESULT key=value ...`
that the Java side (org.lightwire.it.attack.AttackSuite) parses, and exits 0 unless it could
not run at all.

  replay   --port P --seconds S --delay-max M   capture every datagram to and from P for S
                                                 seconds and send each once more, from its own
                                                 source, at a random time up to M s later
  spoof-connect --port P --clients N --sweep K   forged CONNECTs from the address and port of
                                                 each client seen talking to P, then a blind
                                                 sweep of K source ports of 127.0.0.1
  flood    --port P --count N                    N first CONNECTs from random forged sources
  garbage  --port P --count N                    malformed datagrams of every kind, unforged
"""
import argparse
import heapq
import os
import random
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SETUP_BODY = 48          # a CONNECT's body (SetupFlyweight.LONG_LENGTH)
CONNECT = 1
VERSION = 2


def connect_datagram(nonce, max_packet=8192, cookie=bytes(24)):
    """A CONNECT: zero connection id, then the version 2 set-up body (docs/protocol.md)."""
    body = struct.pack(">BBHBBHQQ", CONNECT, VERSION, max_packet, 0, 0, 0, 0, nonce) + cookie
    return struct.pack(">Q", 0) + body


class Forger:
    """Sends UDP datagrams with any IPv4 source address and port through a raw socket."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.sent = 0

    def send(self, src, sport, dst, dport, payload):
        udp_len = 8 + len(payload)
        # The kernel fills in the IP checksum and total length; a zero UDP checksum means none.
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, random.getrandbits(16), 0, 64,
                         socket.IPPROTO_UDP, 0, socket.inet_aton(src), socket.inet_aton(dst))
        udp = struct.pack(">HHHH", sport, dport, udp_len, 0)
        try:
            self.sock.sendto(ip + udp + payload, (dst, 0))
            self.sent += 1
        except OSError:
            pass  # a full socket buffer loses it, as the network would


def sniffer():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind(("lo", 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024 * 1024)
    return s


def parse_udp(frame):
    """(src, sport, dst, dport, payload) of an IPv4 UDP frame captured on lo, else None."""
    if len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    if ip[9] != socket.IPPROTO_UDP or len(ip) < ihl + 8:
        return None
    total = struct.unpack(">H", ip[2:4])[0]
    sport, dport, udp_len = struct.unpack(">HHH", ip[ihl:ihl + 6])
    payload = ip[ihl + 8:min(total, ihl + udp_len)]
    return socket.inet_ntoa(ip[12:16]), sport, socket.inet_ntoa(ip[16:20]), dport, bytes(payload)


def capture(port, seconds, keep):
    """Calls keep(datagram) for every UDP datagram to or from `port` seen for `seconds`."""
    s = sniffer()
    end = time.monotonic() + seconds
    seen = 0
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        if not select.select([s], [], [], left)[0]:
            continue
        frame, addr = s.recvfrom(70000)
        if addr[2] == PACKET_OUTGOING:
            continue  # lo shows each packet twice: keep the incoming copy
        d = parse_udp(frame)
        if d and (d[1] == port or d[3] == port):
            seen += 1
            keep(d)
    s.close()
    return seen


def replay(args):
    forger = Forger()
    rng = random.Random(args.seed)
    pending = []
    data = [0]

    def keep(d):
        if len(d[4]) >= 8 and d[4][:8] != bytes(8):
            data[0] += 1
        heapq.heappush(pending, (time.monotonic() + rng.uniform(0.001, args.delay_max), rng.random(), d))
        flush()

    def flush():
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, (src, sport, dst, dport, payload) = heapq.heappop(pending)
            forger.send(src, sport, dst, dport, payload)

    seen = capture(args.port, args.seconds, keep)
    while pending:
        time.sleep(max(0, min(0.01, pending[0][0] - time.monotonic())))
        flush()
    print(f"RESULT sent={forger.sent} seen={seen} data={data[0]}", flush=True)


def spoof_connect(args):
    clients = set()
    capture(args.port, 1.0, lambda d: clients.add((d[0], d[1])) if d[3] == args.port else None)
    forger = Forger()
    rng = random.Random(args.seed)
    for (src, sport) in sorted(clients)[:args.clients]:
        for _ in range(args.per_client):
            forger.send(src, sport, "127.0.0.1", args.port, connect_datagram(rng.getrandbits(63) | 1))
    aimed = forger.sent
    for sport in range(1024, 1024 + args.sweep):
        forger.send("127.0.0.1", sport, "127.0.0.1", args.port, connect_datagram(rng.getrandbits(63) | 1))
    print(f"RESULT sent={forger.sent} aimed={aimed} clients={len(clients)}", flush=True)


def flood(args):
    forger = Forger()
    rng = random.Random(args.seed)
    for _ in range(args.count):
        src = "127.%d.%d.%d" % (rng.randrange(1, 255), rng.randrange(0, 256), rng.randrange(1, 255))
        forger.send(src, rng.randrange(1024, 65536), "127.0.0.1", args.port, connect_datagram(rng.getrandbits(63) | 1))
    print(f"RESULT sent={forger.sent}", flush=True)


def garbage(args):
    rng = random.Random(args.seed)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.3", 0))
    sent = 0
    for i in range(args.count):
        kind = i % 6
        if kind == 0:
            d = os.urandom(rng.randrange(0, 200))                         # random bytes
        elif kind == 1:
            d = os.urandom(rng.randrange(1, 24))                          # shorter than prefix and header
        elif kind == 2:
            d = struct.pack(">Q", rng.getrandbits(64) | 1) + os.urandom(40)  # an id nobody was given
        elif kind == 3:
            d = connect_datagram(rng.getrandbits(63) | 1)[:rng.randrange(9, 55)]  # a cut CONNECT
        elif kind == 4:
            d = connect_datagram(rng.getrandbits(63) | 1, cookie=os.urandom(24))  # a forged cookie
        else:
            d = struct.pack(">Q", rng.getrandbits(64) | 1) + bytes(9000)   # a large one of an unknown id
        try:
            s.sendto(d, ("127.0.0.1", args.port))
            sent += 1
        except OSError:
            pass
    print(f"RESULT sent={sent}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["replay", "spoof-connect", "flood", "garbage"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--delay-max", type=float, default=5)
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--per-client", type=int, default=20)
    p.add_argument("--sweep", type=int, default=20000)
    p.add_argument("--count", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if os.geteuid() != 0:
        print("RESULT error=not-root", flush=True)
        sys.exit(2)
    {"replay": replay, "spoof-connect": spoof_connect, "flood": flood, "garbage": garbage}[args.command](args)


if __name__ == "__main__":
    main()

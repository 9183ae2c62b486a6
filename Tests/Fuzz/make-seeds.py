#!/usr/bin/env python3
"""Writes the hand-made seed corpus under Tests/Fuzz/Corpus/<target>/.

Seeds are small examples of each protocol (from the protocol notes and the
wire tests), so the fuzzer starts from inputs that reach deep into each
parser. The journal seeds carry real checksums, computed here with the same
fixed salt the journal target uses. Run it again after changing a seed;
the output is deterministic.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write(target, name, data):
    d = os.path.join(HERE, "Corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- CRC32C (Castagnoli), as CParleyJournal computes it -------------------
def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = _table()


def crc32c(crc, data):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


assert crc32c(0, b"123456789") == 0xE3069283


def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


SALT = 0x5041524C45594655  # JournalBytes.salt


def frame(seq, payload, commit=True, rtype=1):
    body = struct.pack("<BBQ", rtype, 1 if commit else 0, seq) + payload
    length = struct.pack("<I", len(payload))
    seed = crc32c(0, struct.pack("<Q", SALT))
    c = crc32c(crc32c(seed, length), body)
    return length + struct.pack("<I", mask(c)) + body


def header(first):
    h = b"PRLYJSEG" + struct.pack("<IQQ", 1, SALT, first)
    return h + struct.pack("<I", mask(crc32c(0, h)))


def journal():
    frames = frame(1, b"hello") + frame(2, b"two", commit=False) + frame(3, b"records")
    # layout 0: a whole valid segment
    write("journal", "segment-whole", b"\x00" + header(1) + frames)
    # layout 0 with a torn tail
    write("journal", "segment-torn-tail", b"\x00" + header(1) + frames + frame(4, b"torn")[:-2])
    # layout 1: header supplied, raw frames
    write("journal", "frames-raw", b"\x01" + frames)
    # layout 2: checksums repaired by the target (zeros here on purpose)
    raw = struct.pack("<I", 3) + b"\0\0\0\0" + struct.pack("<BBQ", 1, 1, 1) + b"abc"
    write("journal", "frames-repaired", b"\x02" + raw + raw)
    # layout 2 + fixed sequences: an open transaction after a committed one
    open_tx = struct.pack("<I", 2) + b"\0\0\0\0" + struct.pack("<BBQ", 7, 0, 0) + b"xy"
    write("journal", "frames-open-transaction", b"\x06" + raw + open_tx + open_tx)
    # layout 3: snapshot at 2, segment starting at 3
    snap_payload = b"state"
    write("journal", "snapshot-and-segment",
          b"\x07" + bytes([2, 2, len(snap_payload)]) + snap_payload + raw + raw)
    # flags the reader does not know
    bad_flags = struct.pack("<I", 1) + b"\0\0\0\0" + struct.pack("<BBQ", 1, 0x80, 1) + b"z"
    write("journal", "frames-unknown-flags", b"\x06" + bad_flags)


def engineio():
    seeds = {
        "open": '0{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}',
        "open-minimal": '0{"sid":"a","pingInterval":1,"pingTimeout":1}',
        "close": "1",
        "ping": "2",
        "probe": "2probe",
        "pong-probe": "3probe",
        "message": '42["chatMessage","alice","hi"]',
        "upgrade": "5",
        "noop": "6",
        "binary": "bAQIDBA==",
        "payload": '2\x1e40\x1e42["a",1]\x1ebAQID',
        "payload-binary": '451-["blob",{"_placeholder":true,"num":0}]\x1ebAAEC',
    }
    for name, text in seeds.items():
        write("engineio", name, text)


def socketio():
    seeds = {
        "connect": "0",
        "connect-auth": '0{"token":"abc"}',
        "connect-nsp": '0/ws-channel-7,{"token":"t"}',
        "connect-sid": '0{"sid":"x1"}',
        "disconnect": "1/admin,",
        "event": '2["chatMessage","alice","hi"]',
        "event-ack": '21["chatMessage","alice","hi"]',
        "event-nsp-ack": '2/admin,1["tellme"]',
        "ack": '31["ok",42]',
        "connect-error": '4{"message":"not authorized"}',
        "connect-error-string": '4/nope,"Unable to connect"',
        "binary-event": '51-["blob",{"_placeholder":true,"num":0}]\x00\x01\x02\x03',
        "binary-ack": '62-/admin,7[{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]\x00ab\x00cd',
        "chat": '2/ws-channel-1,["channel",{"channel_id":1,"channelName":"general","chat_id":9,"content":"hi","createdAt":"2024-01-02T03:04:05.678Z","files":[],"user":{"user_id":3,"email":"a@b.c","nickname":"al","profileImage":null}}]',
    }
    for name, text in seeds.items():
        write("socketio", name, text)


def streamchat():
    seeds = {
        "join": "\x05USR_NAME::alice::END",
        "session": "\x11USR_NAME::bob::ENDMSG::hello there::END\nMSG::two::ENDLEAVE::::END",
        "server-lines": "\x03alice has joined\nalice::hi\r\nbob::a::b\nalice has left\n",
        "unterminated": "\x1fbob::no newline at the end",
        "split-token": "\x01MSG::caf\xc3\xa9 \xe2\x9c\x93::END\r\n",
        "bad-frame": "\x02HELLO::END",
        "combining": "\x04MSG::\xcc\x81x::END bob::\xcc\x81 has joined\n",
        "moderation": "\x06USR_NAME::mod::ENDKICK::bob::spam::ENDMUTE::ann::1.5::a::b::ENDMUTE::x::soon::y::END",
        "notices": "\x07::KICKED::bob::spam\n::MUTED::ann::60::flood\n::DROPPED::0.001::x\n::OK\n::REFUSED::no\n::NOPE\n",
    }
    for name, text in seeds.items():
        write("streamchat", name, text.encode("latin-1") if any(ord(c) > 127 for c in text) else text)


def json_seeds():
    seeds = {
        "object": '{"channel_id":1,"channelName":"general","chat_id":9,"content":"hi","createdAt":"2024-01-02T03:04:05.678Z","files":[],"user":{"user_id":3,"email":"a@b.c","nickname":"al","profileImage":null}}',
        "array": '[1,-2.5e3,0.125,true,false,null,"",[],{}]',
        "escapes": '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\ud800x\\u2028"',
        "numbers": "[0,-0,1e308,5e-324,9007199254740993,123456789012345678901234567890,1E+2,1.5e-7]",
        "nested": "[[[[[[[[[[[[[[[[{\"a\":[{\"b\":{}}]}]]]]]]]]]]]]]]]]",
        "whitespace": ' \t\r\n{ "a" : [ 1 , 2 ] }\n',
        "duplicate-keys": '{"a":1,"a":2}',
        "unicode": '"caf\xc3\xa9 \xf0\x9f\x98\x80"',
    }
    for name, text in seeds.items():
        write("json", name, text.encode("latin-1") if any(ord(c) > 127 for c in text) else text)


def toml():
    for ex in ("greeter", "moderation", "simulated-users"):
        with open(os.path.join(ROOT, "Examples", ex, "bot.toml"), "rb") as f:
            write("toml", "example-" + ex, f.read())
    seeds = {
        "scalars": 'a = 1\nb = -0x1F\nc = 0o17\nd = 0b101\ne = 3.14\nf = -inf\ng = nan\nh = true\ni = 1_000\nj = 6.02e23\n',
        "strings": 's = "tab\\t \\u00e9 \\U0001F600"\nl = \'C:\\path\'\nm = """\nline \\\n  joined"""\nn = \'\'\'\nraw\'\'\'\n',
        "dates": 'a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00.999999-07:00\nc = 1979-05-27T07:32:00\nd = 1979-05-27\ne = 07:32:00\n',
        "tables": '[a.b."c d"]\nx = 1\n[[arr]]\ny = 2\n[[arr]]\ny = 3\ninline = { p = 1, q = { r = [1, [2, 3]] } }\n',
        "keys": 'key = "value"\nbare-key_1 = 1\n"127.0.0.1" = "v"\n\'quoted "value"\' = 2\n"" = "blank"\na.b.c = 3\n',
    }
    for name, text in seeds.items():
        write("toml", name, text)


def pattern():
    # op byte (0 find, 1 plain find, 2 match, 3 gmatch, 4 gsub, 5 gsub function, 6 gsub table,
    # 7 bot.hear's native search and call),
    # init byte (signed), max-n byte (>= 128: n = byte - 128), then subject NUL pattern NUL replacement.
    def seed(name, op, subject, pat, repl=b"", init=1, n=0):
        write("pattern", name, bytes([op, init & 0xFF, n]) + subject + b"\0" + pat + b"\0" + repl)

    seed("find-captures", 0, b"hello world from Lua", rb"(%w+) (%w+)")
    seed("find-plain", 1, b"a.b.c", b".")
    seed("match-anchored", 2, b"  key = value", rb"^%s*([%w_]+)%s*=%s*(.-)%s*$")
    seed("match-position", 2, b"abc", b"()b()")
    seed("gmatch-words", 3, b"one two  three", rb"%a+")
    seed("gmatch-empty", 3, b"abc", b"x*")
    seed("gsub-template", 4, b"hello world", rb"(%w+)", rb"<%1>%0%%")
    seed("gsub-limit", 4, b"aaaa", b"a", b"b", n=130)
    seed("gsub-function", 5, b"k1=v1, k2=v2", rb"(%w+)=(%w+)", b"X")
    seed("gsub-table", 6, b"a b c", rb"%a", b"b")
    seed("balance", 0, b"f(a(b)c) (d", b"%b()")
    seed("frontier", 3, b"THE (quick) fox", b"%f[%a]%a+")
    seed("backref", 2, b'x = "it\'s" y', rb"([\"'])(.-)%1")
    seed("sets", 3, b"a1-b2_c3]", rb"[%a%d_%]-]+")
    seed("backtrack", 0, b"a" * 60, b"a-" * 8 + b"b")
    seed("negative-init", 0, b"abcabc", b"c", init=-2)
    seed("errors", 0, b"x", b"(()")
    seed("hear-captures", 7, b"hello world", rb"^hello (%w+)()")
    seed("hear-plain", 7, b"ping pong", b"pong")


def stomp():
    # one seed byte for the chunk sizes, then the broker's byte stream
    def seed(name, data, chunks=7):
        write("stomp", name, bytes([chunks]) + data)

    seed("connected", b"CONNECTED\nversion:1.2\nheart-beat:10000,10000\nserver:RabbitMQ/3.10.8\n\n\0\n")
    seed("message-json", b"MESSAGE\nsubscription:room-1\ndestination:/topic/chat.room.1\nmessage-id:T_1@@session@@1\n"
         b"content-type:application/json\ncontent-length:61\n\n"
         b'{"type":"TALK","roomId":"1","sender":"alice","message":"hi"}' + b"\0\n")
    seed("receipt-and-beats", b"RECEIPT\nreceipt-id:r-7\n\n\0\n\n\r\n\nRECEIPT\nreceipt-id:r-8\n\n\0")
    seed("escapes", b"MESSAGE\nsubscription:a\\cb\nx:line\\nbreak\\r\\\\\n\nbody\0")
    seed("nul-in-body", b"MESSAGE\nsubscription:s\ncontent-length:5\n\nab\0cd\0\n")
    seed("error", b"ERROR\nmessage:not_found\ncontent-type:text/plain\ncontent-length:36\n\n"
         b"no exchange 'chat/room' in vhost '/'\0\n")
    seed("repeated-header", b"MESSAGE\nsubscription:first\nsubscription:second\n\n\0", chunks=1)
    seed("bad-escape", b"MESSAGE\nx:\\t\n\n\0")


def restchat():
    write("restchat", "chat", '{"channel_id":3,"channelName":"general","chat_id":41,"content":"hello there",'
          '"createdAt":"2026-11-21T09:30:00.123Z","files":[],"user":{"user_id":7,"email":"alice@example.com",'
          '"nickname":"alice","profileImage":null}}')
    write("restchat", "history-page", '[{"chat_id":"a1","content":"one","createdAt":"2026-01-01T00:00:00.000Z",'
          '"user":{"user_id":"u1","email":"b@x"}},{"chat_id":2,"content":"two","createdAt":"2026-12-31T23:59:59.999Z",'
          '"user":{"user_id":2,"nickname":"bob","extra":{"unknown":true}}}]')
    write("restchat", "missing-user", '{"chat_id":1,"content":"x","createdAt":"2026-11-21T09:30:00.000Z"}')
    write("restchat", "date", "1970-01-01T00:00:00.000Z")


def cron():
    for name, spec in {
        "every-minute": "* * * * *", "weekdays": "0 9 * * mon-fri", "lists": "0,15,30,45 8-18/2 1,15 jan,jul *",
        "steps": "*/5 */3 */7 */2 */2", "from-step": "5/20 1/6 * * *", "vixie-or": "0 0 13 * fri",
        "alias": "@daily", "leap": "0 0 29 feb *", "sunday-7": "30 23 * * 7", "bad-range": "5-1 * * * *",
    }.items():
        write("cron", name, spec)


def luajson():
    for name, text in {
        "object": '{"a": [1, 2.5, null, "x"], "b": {"c": false}, "1": "one"}', "empty": "[]", "nulls": "[null,null]",
        "big": "[1e300, -0, 9007199254740993, 123456789012345678]", "unicode": '"\\u00e9\\ud83d\\ude00"',
        "deep": "[" * 30 + "]" * 30,
    }.items():
        write("luajson", name, text)


journal()
engineio()
socketio()
streamchat()
json_seeds()
toml()
pattern()
stomp()
restchat()
cron()
luajson()
print("seeds written under", os.path.join(HERE, "Corpus"), file=sys.stderr)

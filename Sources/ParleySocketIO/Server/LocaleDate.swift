#if canImport(Glibc)
import Glibc
#endif

/// The date SocketChat puts on a message: what the seed's `new Date().toLocaleString()`
/// printed under Node's default en-US locale, `11/21/2026, 3:04:05 PM`, in the
/// server's local time zone. (Node 20 and later put U+202F before `AM`/`PM`;
/// clients display the string and never parse it, so the seed's plain space stays.)
enum LocaleDate {
    static func now() -> String {
        var seconds = time(nil)
        var t = tm()
        localtime_r(&seconds, &t)
        let hour = t.tm_hour % 12 == 0 ? 12 : t.tm_hour % 12
        return "\(t.tm_mon + 1)/\(t.tm_mday)/\(t.tm_year + 1900), \(hour):\(twoDigits(t.tm_min)):\(twoDigits(t.tm_sec)) \(t.tm_hour < 12 ? "AM" : "PM")"
    }

    private static func twoDigits(_ n: Int32) -> String {
        n < 10 ? "0\(n)" : "\(n)"
    }
}

import NIOCore

/// The web chat the embedded server serves at `/` (`/?room=NAME` for a room
/// of its own namespace): one page that speaks Engine.IO and Socket.IO with
/// the SocketChat events, like any other client of this server. Its HTML,
/// CSS and JavaScript are embedded in the binary: no build step, no CDN.
enum WebChat {
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
    }

    /// The page and its two files, by path.
    static let assets: [String: Asset] = [
        "/": Asset(body: ByteBuffer(bytes: PackageResources.chat_html), contentType: "text/html; charset=utf-8"),
        "/chat.js": Asset(body: ByteBuffer(bytes: PackageResources.chat_js), contentType: "text/javascript; charset=utf-8"),
        "/chat.css": Asset(body: ByteBuffer(bytes: PackageResources.chat_css), contentType: "text/css; charset=utf-8"),
    ]

    /// What a request for `uri` gets, if it is one of the page's files.
    static func asset(uri: String) -> Asset? {
        var path = Substring(uri)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        return assets[path == "/index.html" ? "/" : String(path)]
    }

    /// Scripts and styles from this server only, no inline script, no
    /// framing: even if a message slipped past `textContent`, it could not run.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-cache"),
    ]
}

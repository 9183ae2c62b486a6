import ParleyCore
import ParleyRuntime
import Testing

/// The one redaction helper: known values masked raw and percent-encoded,
/// query values and user info masked in URLs whatever they are called.
struct RedactorTests {
    @Test func knownSecretsAreMaskedRawAndPercentEncoded() {
        let r = Redactor(secrets: ["p@ss word/1", "ab"])
        r.add(["Authorization": "Bearer tok-123", "X-Trace": "trace-id"])
        r.add(["user": "someone"], all: true)
        #expect(r("login p@ss word/1 failed") == "login *** failed")
        #expect(r("GET /x?pw=p%40ss%20word%2F1") == "GET /x?pw=***")
        #expect(r("Authorization: Bearer tok-123; tok-123 again") == "Authorization: ***; *** again")
        #expect(r("trace-id stays, someone goes") == "trace-id stays, *** goes")
        #expect(r("ab is too short to be a secret") == "ab is too short to be a secret")
    }

    @Test func urlsKeepTheProtocolAndLoseCredentials() {
        #expect(Redactor.url("http://h:1/socket.io/?EIO=4&transport=polling&sid=abc&token=s3cret&k")
                == "http://h:1/socket.io/?EIO=4&transport=polling&sid=abc&token=***&k")
        #expect(Redactor.url("ws://user:pw@host:15674/ws?access_token=x#frag") == "ws://***@host:15674/ws?access_token=***#frag")
        #expect(Redactor.url("https://host/path") == "https://host/path")
    }

    @Test func aURLsCredentialsAreMaskedWhereverTheyAreEchoed() {
        let r = Redactor()
        r.add(credentialsIn: "ws://bot:pa55word@host/ws?EIO=4&access_token=tok%2F42&x=long-value")
        #expect(r("echo: pa55word tok/42 tok%2F42 long-value EIO=4") == "echo: *** *** *** *** EIO=4")
    }
}

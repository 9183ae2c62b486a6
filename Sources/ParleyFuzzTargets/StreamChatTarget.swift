import ParleyWire

extension FuzzTarget {
    /// StreamChat: the input (after one seed byte for the chunk sizes) is a
    /// TCP byte stream, read both as client frames and as server lines.
    /// Oracles: decoding in random-sized chunks gives the same frames, lines
    /// and errors as decoding all at once (the decoders keep state across
    /// reads, which is where stream parsers break); server lines read back
    /// from their own encoding.
    static let streamChat = FuzzTarget(
        name: "streamchat", summary: "StreamChat client frames, server lines and the text rules"
    ) { data in
        var input = FuzzInput(data)
        let seed = input.byte()
        let bytes = Array(input.remaining())

        let whole = clientFrames(bytes, chunks: nil)
        let chunked = clientFrames(bytes, chunks: ChunkSizes(seed: seed))
        FuzzCheck.require(whole.frames == chunked.frames && whole.failed == chunked.failed, "streamchat",
                          "client frames differ when read in chunks: \(whole) vs \(chunked)")
        for case .message(let text) in whole.frames { _ = StreamChat.check(text) }
        for case .userName(let name) in whole.frames { _ = StreamChat.checkName(name) }

        let lines = serverLines(bytes, chunks: nil)
        FuzzCheck.require(lines == serverLines(bytes, chunks: ChunkSizes(seed: seed)), "streamchat",
                          "server lines differ when read in chunks")
        for line in lines {
            guard let parsed = StreamChat.ServerLine(line: line) else { continue }
            let back = StreamChat.ServerLine(line: String(decoding: parsed.encoded.dropLast(), as: UTF8.self))
            FuzzCheck.require(back == parsed, "streamchat", "\(parsed) does not read back from its encoding")
        }

        let text = String(decoding: bytes, as: UTF8.self)
        _ = StreamChat.check(text)
        _ = StreamChat.checkName(text)
        // `bot.send` splits text with `lines(of:)`; no piece may still hold a line break.
        for line in StreamChat.lines(of: text) {
            FuzzCheck.require(!line.isEmpty && StreamChat.check(line) != .lineBreak, "streamchat",
                              "lines(of:) left a line break or an empty line in \(line.debugDescription)")
        }
    }

    private static func clientFrames(_ bytes: [UInt8], chunks: ChunkSizes?) -> (frames: [StreamChat.ClientFrame], failed: Bool) {
        var decoder = StreamChat.ClientFrameDecoder()
        var frames: [StreamChat.ClientFrame] = []
        var sizes = chunks
        var at = 0
        while at < bytes.count {
            let n = sizes?.next() ?? bytes.count
            decoder.append(bytes[at..<min(at + n, bytes.count)])
            at += n
            do {
                while let frame = try decoder.next() { frames.append(frame) }
            } catch {
                return (frames, true)
            }
        }
        return (frames, false)
    }

    private static func serverLines(_ bytes: [UInt8], chunks: ChunkSizes?) -> [String] {
        var splitter = StreamChat.ServerLineSplitter()
        var lines: [String] = []
        var sizes = chunks
        var at = 0
        while at < bytes.count {
            let n = sizes?.next() ?? bytes.count
            splitter.append(bytes[at..<min(at + n, bytes.count)])
            at += n
            while let line = splitter.next() { lines.append(line) }
        }
        if let tail = splitter.takeUnterminated() { lines.append(tail) }
        return lines
    }
}

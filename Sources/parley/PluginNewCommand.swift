import ArgumentParser
import Foundation
import ParleyRuntime

/// `parley plugin new NAME`: a plugin to start from, with a conversation that
/// tests it and the actions it should produce, so `--expect` passes at once.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write a plugin skeleton, a test conversation and its expected actions.",
        discussion: "Writes DIR/NAME.lua, DIR/NAME.test.jsonl and DIR/NAME.expected.jsonl; refuses to overwrite (exit 2)."
    )

    @Argument(help: "The plugin's name: lower-case letters, digits and _, starting with a letter.")
    var name: String

    @Option(help: "The folder to write into.")
    var dir = "plugins"

    func validate() throws {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 64,
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            throw ValidationError("'\(name)' is not a plugin name: use lower-case letters, digits and _, starting with a letter")
        }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: dir)
        let files = [
            (folder.appendingPathComponent("\(name).lua"), Self.plugin(name)),
            (folder.appendingPathComponent("\(name).test.jsonl"), Self.conversation(name)),
            (folder.appendingPathComponent("\(name).expected.jsonl"), Self.expected(name)),
        ]
        for (url, _) in files where FileManager.default.fileExists(atPath: url.path) {
            CommandOutput.print("parley: \(url.path) exists; not overwriting it", to: .error)
            throw ExitCode(2)
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (url, text) in files { try text.write(to: url, atomically: true, encoding: .utf8) }
        } catch {
            CommandOutput.print("parley: cannot write into \(dir): \(error.localizedDescription)", to: .error)
            throw ExitCode(2)
        }
        for (url, _) in files { CommandOutput.print("wrote \(url.relativePath)") }
        CommandOutput.print("try it: parley plugin test \(dir)/\(name).lua --events \(dir)/\(name).test.jsonl --expect \(dir)/\(name).expected.jsonl")
    }

    static func plugin(_ name: String) -> String {
        """
        -- \(name).lua: a Parley plugin.
        --
        --   !\(name)          -> hello, <you>!
        --   !\(name) count    -> how many times anyone asked
        --
        -- Commands also work when addressed by name: "parley: \(name) count".
        -- Test it:
        --   parley plugin test \(name).lua --events \(name).test.jsonl --expect \(name).expected.jsonl
        -- After changing what it says: the same with --update rewrites the expected file.

        bot.command("\(name)", function(msg, args)
          -- bot.state survives restarts (with a journal). Its writes and the
          -- reply below happen together or not at all, if the handler fails.
          local asked = (bot.state.get("asked") or 0) + 1
          bot.state.set("asked", asked)

          -- args holds the words after the command; args.raw is the text as typed.
          if args[1] == "count" then
            msg:reply("asked " .. asked .. " times")
          else
            msg:reply("hello, " .. msg.user .. "!")
          end
        end)

        """
    }

    static func conversation(_ name: String) -> String {
        """
        {"type":"message","room":"lobby","user":"alice","text":"!\(name)"}
        {"type":"message","room":"lobby","user":"bob","text":"!\(name) count"}

        """
    }

    static func expected(_ name: String) -> String {
        """
        {"plugin":"\(name)","action":"send","room":"lobby","text":"hello, alice!"}
        {"plugin":"\(name)","action":"send","room":"lobby","text":"asked 2 times"}

        """
    }
}

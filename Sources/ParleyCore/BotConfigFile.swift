import ParleyConfig
import ParleyLua

/// A bot config file (TOML). Filled in below.
public struct BotConfigFile {
    public static func load(path: String) throws -> BotConfigFile { throw ConfigLoadError(message: "\(path): config loading is not wired yet") }
    public func botOptions(named: String?) throws -> BotOptions { BotOptions(name: named ?? "parley") }
}
struct ConfigLoadError: Error, CustomStringConvertible { var message: String; var description: String { message } }

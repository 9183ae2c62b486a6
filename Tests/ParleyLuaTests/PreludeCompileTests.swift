@testable import ParleyLua
import Testing

/// The prelude is compiled once per process into stripped bytecode; plugins never are.
struct PreludeCompileTests {
    @Test func aPreludeIsCompiledOnceToStrippedBytecode() {
        let source = "local native, setup = ...\nlocal unused_name = 1\nreturn function(kind, ev) end\n"
        let a = PluginVM.compiled(prelude: source)
        #expect(a.starts(with: [0x1B, 0x4C, 0x75, 0x61]), "a Lua binary chunk")
        #expect(!String(decoding: a, as: UTF8.self).contains("unused_name"), "stripped: no local names")
        #expect(PluginVM.compiled(prelude: source) == a)
    }

    /// Text that does not compile is handed over as text, so the VM's setup names the error.
    @Test func aPreludeThatDoesNotCompileStaysTextAndTheSetupSaysWhy() {
        let broken = "return function(kind, ev"
        #expect(PluginVM.compiled(prelude: broken) == Array(broken.utf8))
        #expect(throws: PluginFailure.self) {
            _ = try PluginVM(setup: VMSetup(prelude: broken, botName: "b"), limits: PluginLimits())
        }
    }
}

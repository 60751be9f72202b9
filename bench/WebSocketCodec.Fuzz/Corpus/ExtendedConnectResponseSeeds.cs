using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seeds of the <c>h2response</c> target: servers' answers to an extended CONNECT, written one item a line: the
/// <c>:status</c> (<c>-</c> for none), <c>open</c> or <c>end</c> (whether the HEADERS frame ended the stream), then
/// <c>name: value</c> fields (read back by <see cref="ExtendedConnectSeeds.Parse"/>'s rules).
/// </summary>
public static class ExtendedConnectResponseSeeds
{
    /// <summary>Tokens for the text mutator.</summary>
    public static readonly string[] Dictionary =
    [
        "\n", ": ", " ", "\t", ",", ", ", "200", "204", "101", "400", "404", "-", "open", "end", "sec-websocket-protocol: ", "chat",
        "superchat", "sec-websocket-extensions: ", "permessage-deflate", "; server_no_context_takeover", "; client_max_window_bits=10",
        "\"", "=", ";", "\u00A0", "\u00FF", "\0",
    ];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } =
    [
        Entry("ok", "200\nopen"),
        Entry("ok-subprotocol", "200\nopen\nsec-websocket-protocol: chat"),
        Entry("ok-deflate", "200\nopen\nsec-websocket-extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
        Entry("ok-both", "200\nopen\nsec-websocket-protocol: superchat\nsec-websocket-extensions: permessage-deflate; server_max_window_bits=10"),
        Entry("ended", "200\nend"),
        Entry("refused-400", "400\nend\nsec-websocket-version: 13"),
        Entry("refused-404", "404\nopen"),
        Entry("no-status", "-\nopen"),
        Entry("status-204", "204\nopen"),
        Entry("subprotocol-not-offered", "200\nopen\nsec-websocket-protocol: other"),
        Entry("subprotocol-two-fields", "200\nopen\nsec-websocket-protocol: chat\nsec-websocket-protocol: chat"),
        Entry("subprotocol-spaces", "200\nopen\nsec-websocket-protocol:  chat "),
        Entry("extension-unknown", "200\nopen\nsec-websocket-extensions: x-foo"),
        Entry("extension-two-fields", "200\nopen\nsec-websocket-extensions: permessage-deflate\nsec-websocket-extensions: permessage-deflate"),
    ];

    private static CorpusEntry Entry(string name, string text) => new(name, Encoding.Latin1.GetBytes(text));
}

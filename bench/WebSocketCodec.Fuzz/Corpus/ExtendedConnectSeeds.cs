using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seed header sets of RFC 8441 extended CONNECTs (test/WebSocketCodec.Tests/Http2), written one item a line:
/// the method, the <c>:protocol</c> (<c>-</c> for none), then <c>name: value</c> fields. <see cref="Parse"/> reads any
/// bytes back as a header set, so every mutation is a header set.
/// </summary>
public static class ExtendedConnectSeeds
{
    /// <summary>Tokens for the text mutator.</summary>
    public static readonly string[] Dictionary =
    [
        "\n", ": ", ":", " ", "\t", ",", ", ", "CONNECT", "GET", "websocket", "WebSocket", "-", "host: ", "sec-websocket-version: ",
        "13", " 13 ", "8", "sec-websocket-protocol: ", "chat", "superchat", "sec-websocket-extensions: ", "permessage-deflate",
        "origin: ", "\"", "=", ";", "\u00FF", "\0",
    ];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } =
    [
        Entry("rfc-example", "CONNECT\nwebsocket\nhost: server.example.com\nsec-websocket-version: 13\norigin: http://www.example.com\nsec-websocket-protocol: chat, superchat\nsec-websocket-extensions: permessage-deflate"),
        Entry("minimal", "CONNECT\nwebsocket\nsec-websocket-version: 13"),
        Entry("protocol-case", "CONNECT\nWebSocket\nsec-websocket-version: 13\nhost: x"),
        Entry("no-protocol", "CONNECT\n-\nsec-websocket-version: 13"),
        Entry("other-protocol", "CONNECT\nwebtransport\nsec-websocket-version: 13"),
        Entry("get", "GET\nwebsocket\nsec-websocket-version: 13"),
        Entry("post", "POST\nwebsocket\nsec-websocket-version: 13"),
        Entry("no-version", "CONNECT\nwebsocket\nhost: x"),
        Entry("version-8", "CONNECT\nwebsocket\nsec-websocket-version: 8"),
        Entry("two-versions", "CONNECT\nwebsocket\nsec-websocket-version: 13\nsec-websocket-version: 13"),
        Entry("version-spaces", "CONNECT\nwebsocket\nsec-websocket-version:  13 "),
        Entry("bad-subprotocols", "CONNECT\nwebsocket\nsec-websocket-version: 13\nsec-websocket-protocol: chat,,\"x\""),
        Entry("empty-subprotocol", "CONNECT\nwebsocket\nsec-websocket-version: 13\nsec-websocket-protocol: "),
        Entry("two-subprotocol-fields", "CONNECT\nwebsocket\nsec-websocket-version: 13\nsec-websocket-protocol: chat\nsec-websocket-protocol: superchat"),
    ];

    /// <summary>Reads bytes back as (method, :protocol, fields): lines split at LF, Latin-1; a field line splits at its
    /// first colon after the first character (a line with none is a name with an empty value).</summary>
    public static (string Method, string? Protocol, List<KeyValuePair<string, string>> Fields) Parse(byte[] input)
    {
        string[] lines = Encoding.Latin1.GetString(input).Split('\n');
        string method = lines[0];
        string? protocol = lines.Length > 1 ? (lines[1] == "-" ? null : lines[1]) : null;
        var fields = new List<KeyValuePair<string, string>>();
        for (int i = 2; i < lines.Length; i++)
        {
            string line = lines[i];
            int colon = line.Length > 1 ? line.IndexOf(':', 1) : -1;
            fields.Add(colon < 0 ? new(line, string.Empty) : new(line[..colon], line[(colon + 1)..].TrimStart(' ')));
        }

        return (method, protocol, fields);
    }

    private static CorpusEntry Entry(string name, string text) => new(name, Encoding.Latin1.GetBytes(text));
}

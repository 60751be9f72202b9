using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seeds of the <c>http101</c> target: servers' answers to a client's opening handshake (the key of
/// <see cref="HttpSeeds.Key"/>, subprotocols <see cref="HttpSeeds.Offered"/>), valid and with each RFC 6455 §4.1 rule
/// broken once, in the spellings servers use (case, lists, several fields), and permessage-deflate answers.
/// </summary>
public static class Http101Seeds
{
    private const string Accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
    private const string Head = "HTTP/1.1 101 Switching Protocols\r\n";
    private const string Valid = Head + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n";

    /// <summary>Tokens for the text mutator.</summary>
    public static readonly string[] Dictionary =
    [
        .. HttpSeeds.Dictionary, "HTTP/1.0", "HTTP/2", "101 ", "200", "websocket, h2c", "WebSocket", "upgrade", "keep-alive, Upgrade",
        "permessage-deflate; server_no_context_takeover", "client_max_window_bits=10", "server_max_window_bits=9", "CHAT", " chat",
    ];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } =
    [
        Entry("valid", Valid + "\r\n"),
        Entry("subprotocol", Valid + "Sec-WebSocket-Protocol: chat\r\n\r\n"),
        Entry("subprotocol-case", Valid + "Sec-WebSocket-Protocol: Chat\r\n\r\n"),
        Entry("subprotocol-two-fields", Valid + "Sec-WebSocket-Protocol: chat\r\nSec-WebSocket-Protocol: superchat\r\n\r\n"),
        Entry("subprotocol-empty", Valid + "Sec-WebSocket-Protocol: \r\n\r\n"),
        Entry("spellings", Head + "upgrade: WebSocket\r\nconnection: keep-alive, upgrade\r\nsec-websocket-accept: " + Accept + "\r\n\r\n"),
        Entry("two-connection-fields", Head + "Upgrade: websocket\r\nConnection: keep-alive\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("upgrade-list", Head + "Upgrade: h2c, websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("upgrade-versioned", Head + "Upgrade: websocket/13\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("no-upgrade", Head + "Connection: Upgrade\r\nSec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("no-connection", Head + "Upgrade: websocket\r\nSec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("no-accept", Head + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
        Entry("accept-of-other-key", Head + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: HSmrc0sMlYUkAGmm5OPpG2HaGWk=\r\n\r\n"),
        Entry("accept-lower-case", Head + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + Accept.ToLowerInvariant() + "\r\n\r\n"),
        Entry("two-accepts", Valid + "Sec-WebSocket-Accept: " + Accept + "\r\n\r\n"),
        Entry("http10", Valid.Replace("HTTP/1.1", "HTTP/1.0", StringComparison.Ordinal) + "\r\n"),
        Entry("status-200", Valid.Replace("101 Switching Protocols", "200 OK", StringComparison.Ordinal) + "\r\n"),
        Entry("status-426", "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\n\r\n"),
        Entry("extension-not-offered", Valid + "Sec-WebSocket-Extensions: x-webkit-deflate-frame\r\n\r\n"),
        Entry("extension-empty", Valid + "Sec-WebSocket-Extensions: \r\n\r\n"),
        Entry("deflate", Valid + "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n\r\n"),
        Entry("deflate-windows", Valid + "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=9; client_max_window_bits=10\r\n\r\n"),
        Entry("deflate-two-fields", Valid + "Sec-WebSocket-Extensions: permessage-deflate\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"),
    ];

    private static CorpusEntry Entry(string name, string text) => new(name, Encoding.Latin1.GetBytes(text));
}

using System.Text;
using WebSocketCodec.Handshake;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>
/// A deliberately small HTTP/1.1 upgrade request check for the demo (RFC 6455 §4.2.1): request line, Host,
/// Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Version: 13 and a valid Sec-WebSocket-Key. The full, bounded
/// parser over spans belongs to the Kestrel/Pipelines layer.
/// </summary>
internal static class UpgradeRequest
{
    /// <summary>Checks the request head; returns the HTTP response to send (101 on success).</summary>
    public static (bool Accepted, string Response) Answer(string head, string path)
    {
        string[] lines = head.Split("\r\n");
        string[] requestLine = lines[0].Split(' ');
        if (requestLine.Length != 3 || requestLine[0] != "GET" || requestLine[2] != "HTTP/1.1")
        {
            return (false, Status("400 Bad Request"));
        }

        if (requestLine[1] != path)
        {
            return (false, Status("404 Not Found"));
        }

        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0))
        {
            int colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon <= 0)
            {
                return (false, Status("400 Bad Request"));
            }

            string name = line[..colon];
            string value = line[(colon + 1)..].Trim(' ', '\t');
            headers[name] = headers.TryGetValue(name, out string? earlier) ? $"{earlier}, {value}" : value;
        }

        if (headers.TryGetValue("Sec-WebSocket-Version", out string? version) && version != "13")
        {
            return (false, "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }

        if (!headers.ContainsKey("Host") || version is null
            || !ListContains(headers, "Upgrade", "websocket") || !ListContains(headers, "Connection", "Upgrade")
            || !headers.TryGetValue("Sec-WebSocket-Key", out string? key) || !WebSocketHandshake.IsValidKey(key))
        {
            return (false, Status("400 Bad Request"));
        }

        var response = new StringBuilder()
            .Append("HTTP/1.1 101 Switching Protocols\r\n")
            .Append("Upgrade: websocket\r\n")
            .Append("Connection: Upgrade\r\n")
            .Append("Sec-WebSocket-Accept: ").Append(WebSocketHandshake.ComputeAccept(key)).Append("\r\n\r\n");
        return (true, response.ToString());
    }

    private static bool ListContains(Dictionary<string, string> headers, string name, string token)
    {
        if (!headers.TryGetValue(name, out string? value))
        {
            return false;
        }

        foreach (ReadOnlySpan<char> element in new HeaderListEnumerator(value))
        {
            if (element.Equals(token, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    private static string Status(string status) => $"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
}

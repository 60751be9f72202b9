using System.Buffers;
using System.Globalization;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Opens a TCP connection to a server, directly or through an HTTP proxy's CONNECT tunnel (RFC 9110 section 9.3.6), for
/// both clients. The proxy's answer head is taken from the socket byte-exactly (peeked, then consumed up to its end), so
/// whatever follows it belongs to the tunnel. A refusal is a <see cref="WebSocketHandshakeException"/> with the proxy's
/// status and <see cref="WebSocketHandshakeException.FromProxy"/> set.
/// </summary>
internal static class ProxyTunnel
{
    private const int MaxAnswerHead = 16 * 1024;

    /// <summary>A connected socket to <paramref name="host"/>:<paramref name="port"/> (through <paramref name="route"/>
    /// when given). The caller owns it.</summary>
    public static async Task<Socket> ConnectAsync(ProxyRoute? route, string host, int port, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            if (route is not { } proxy)
            {
                await socket.ConnectAsync(host, port, cancellationToken).ConfigureAwait(false);
                return socket;
            }

            try
            {
                await socket.ConnectAsync(proxy.Proxy.IdnHost, proxy.Proxy.Port, cancellationToken).ConfigureAwait(false);
            }
            catch (SocketException error)
            {
                throw new WebSocketHandshakeException($"Could not connect to the proxy {ProxyRoute.Shown(proxy.Proxy)}: {error.Message}", error);
            }

            await socket.SendAsync(Request(proxy, host, port), SocketFlags.None, cancellationToken).ConfigureAwait(false);
            await ReadAnswerAsync(socket, proxy, host, port, cancellationToken).ConfigureAwait(false);
            return socket;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    private static byte[] Request(ProxyRoute proxy, string host, int port)
    {
        string authority = (host.Contains(':', StringComparison.Ordinal) ? $"[{host}]" : host) + ":" + port.ToString(CultureInfo.InvariantCulture);
        var text = new StringBuilder()
            .Append("CONNECT ").Append(authority).Append(" HTTP/1.1\r\n")
            .Append("Host: ").Append(authority).Append("\r\n");
        if (proxy.Credential is { } credential)
        {
            string pair = credential.UserName + ":" + credential.Password;
            text.Append("Proxy-Authorization: Basic ").Append(Convert.ToBase64String(Encoding.UTF8.GetBytes(pair))).Append("\r\n");
        }

        return Encoding.ASCII.GetBytes(text.Append("\r\n").ToString());
    }

    /// <summary>Reads the proxy's answer head and nothing after it; returns when it is 2xx.</summary>
    private static async Task ReadAnswerAsync(Socket socket, ProxyRoute proxy, string host, int port, CancellationToken cancellationToken)
    {
        byte[] head = ArrayPool<byte>.Shared.Rent(MaxAnswerHead);
        try
        {
            int length = 0;
            while (true)
            {
                if (length == MaxAnswerHead)
                {
                    throw new WebSocketHandshakeException($"The proxy {ProxyRoute.Shown(proxy.Proxy)} sent an answer head over {MaxAnswerHead} bytes.") { FromProxy = true };
                }

                // Peek, then consume only up to the head's end: the bytes behind it are the server's.
                int peeked = await socket.ReceiveAsync(head.AsMemory(length), SocketFlags.Peek, cancellationToken).ConfigureAwait(false);
                if (peeked == 0)
                {
                    throw new WebSocketHandshakeException(
                        $"The proxy {ProxyRoute.Shown(proxy.Proxy)} closed the connection before answering CONNECT {host}:{port}.") { FromProxy = true };
                }

                int searchFrom = Math.Max(0, length - 3);
                int end = head.AsSpan(searchFrom, length + peeked - searchFrom).IndexOf("\r\n\r\n"u8);
                int take = end < 0 ? peeked : searchFrom + end + 4 - length;
                int taken = 0;
                while (taken < take)
                {
                    taken += await socket.ReceiveAsync(head.AsMemory(length + taken, take - taken), SocketFlags.None, cancellationToken).ConfigureAwait(false);
                }

                length += take;
                if (end >= 0)
                {
                    Check(head.AsSpan(0, length), proxy, host, port);
                    return;
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(head);
        }
    }

    private static void Check(ReadOnlySpan<byte> head, ProxyRoute proxy, string host, int port)
    {
        OperationStatus status = HttpHeadParser.TryParse(head, out HttpHead? parsed, out _, out HttpHeadError error, MaxAnswerHead);
        if (status != OperationStatus.Done || parsed is null || !parsed.IsResponse
            || !int.TryParse(parsed.Status, NumberStyles.None, CultureInfo.InvariantCulture, out int code))
        {
            throw new WebSocketHandshakeException($"The proxy {ProxyRoute.Shown(proxy.Proxy)} answered CONNECT with a malformed head ({error}).") { FromProxy = true };
        }

        if (code is < 200 or > 299)
        {
            string hint = code == 407
                ? proxy.Credential is null ? " (it wants credentials: give the proxy's Credentials or user:password in its URI)" : " (it refused the credentials)"
                : "";
            throw new WebSocketHandshakeException(
                $"The proxy {ProxyRoute.Shown(proxy.Proxy)} answered {code} {parsed.ReasonPhrase} to CONNECT {host}:{port}{hint}.", code)
            {
                FromProxy = true,
                RetryAfter = RetryAfterHeader.Parse(parsed["Retry-After"], DateTimeOffset.UtcNow),
            };
        }
    }
}

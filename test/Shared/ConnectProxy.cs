using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Testing;

/// <summary>
/// A tiny HTTP forward proxy on 127.0.0.1: it reads each connection's CONNECT head, records it, and either answers
/// <c>200 Connection established</c> and relays bytes both ways between the client and the named host:port (a tunnel,
/// counted in <see cref="Tunnels"/>), or, when built with a refusal, answers that status and closes.
/// </summary>
public sealed class ConnectProxy : IDisposable
{
    private const int MaxHead = 16 * 1024;
    private static readonly TimeSpan HeadTimeout = TimeSpan.FromSeconds(10);
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly ConcurrentDictionary<Socket, bool> _sockets = new();
    private readonly ConcurrentQueue<string> _heads = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly string? _refusal;
    private int _tunnels;

    /// <summary>Starts the proxy.</summary>
    /// <param name="refusal">null to tunnel every CONNECT; else the status line's code and reason to answer every one
    /// with (e.g. <c>407 Proxy Authentication Required</c>).</param>
    public ConnectProxy(string? refusal = null)
    {
        _refusal = refusal;
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _ = Task.Run(AcceptAsync, CancellationToken.None);
    }

    /// <summary>The proxy's port.</summary>
    public int Port { get; }

    /// <summary>Tunnels opened so far (CONNECT answered 200 and the target reached).</summary>
    public int Tunnels => Volatile.Read(ref _tunnels);

    /// <summary>Every CONNECT head received, in arrival order (request line and header fields).</summary>
    public IReadOnlyCollection<string> Heads => _heads;

    /// <summary>Stops accepting and closes every connection.</summary>
    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
        foreach (Socket socket in _sockets.Keys)
        {
            socket.Dispose();
        }

        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync(_stop.Token);
            }
            catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            _ = ServeAsync(client);
        }
    }

    private async Task ServeAsync(Socket client)
    {
        _sockets[client] = true;
        Socket? target = null;
        try
        {
            (string head, byte[] after) = await ReadHeadAsync(client);
            _heads.Enqueue(head);
            string[] requestLine = head[..head.IndexOf("\r\n", StringComparison.Ordinal)].Split(' ');
            if (_refusal is not null || requestLine is not ["CONNECT", _, _])
            {
                string answer = $"HTTP/1.1 {_refusal ?? "405 Method Not Allowed"}\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                await client.SendAsync(Encoding.ASCII.GetBytes(answer), _stop.Token);
                client.Shutdown(SocketShutdown.Send);
                return;
            }

            string authority = requestLine[1];
            int colon = authority.LastIndexOf(':');
            target = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            _sockets[target] = true;
            await target.ConnectAsync(authority[..colon].Trim('[', ']'), int.Parse(authority[(colon + 1)..], System.Globalization.CultureInfo.InvariantCulture), _stop.Token);
            await client.SendAsync("HTTP/1.1 200 Connection established\r\n\r\n"u8.ToArray(), _stop.Token);
            Interlocked.Increment(ref _tunnels);
            if (after.Length > 0)
            {
                await target.SendAsync(after, _stop.Token);
            }

            await Task.WhenAll(PumpAsync(client, target), PumpAsync(target, client));
        }
        catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException or IOException)
        {
            // stopped, the client went away, or its head never came
        }
        finally
        {
            client.Dispose();
            target?.Dispose();
            _sockets.TryRemove(client, out _);
            if (target is not null)
            {
                _sockets.TryRemove(target, out _);
            }
        }
    }

    /// <summary>The head up to its blank line (within <see cref="HeadTimeout"/> and <see cref="MaxHead"/> bytes), and
    /// any bytes the client sent behind it.</summary>
    private async Task<(string Head, byte[] After)> ReadHeadAsync(Socket client)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
        timeout.CancelAfter(HeadTimeout);
        byte[] buffer = new byte[MaxHead];
        int length = 0;
        while (true)
        {
            int read = await client.ReceiveAsync(buffer.AsMemory(length), timeout.Token);
            if (read == 0)
            {
                throw new IOException("The client closed before its CONNECT head ended.");
            }

            length += read;
            int end = buffer.AsSpan(0, length).IndexOf("\r\n\r\n"u8);
            if (end >= 0)
            {
                return (Encoding.ASCII.GetString(buffer, 0, end), buffer[(end + 4)..length]);
            }

            if (length == MaxHead)
            {
                throw new IOException("The CONNECT head is too large.");
            }
        }
    }

    private async Task PumpAsync(Socket from, Socket to)
    {
        byte[] buffer = new byte[65536];
        try
        {
            int read;
            while ((read = await from.ReceiveAsync(buffer, _stop.Token)) > 0)
            {
                await to.SendAsync(buffer.AsMemory(0, read), _stop.Token);
            }

            to.Shutdown(SocketShutdown.Send); // a FIN passes through as a FIN
        }
        catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // stopped, or the other side is gone
        }
    }
}

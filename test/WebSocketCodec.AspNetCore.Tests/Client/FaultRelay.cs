using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>
/// A TCP relay on loopback in front of a server that breaks connections on demand: it cuts them (RST, both sides)
/// after a number of bytes in one direction, mid-handshake or mid-frame, or goes silent (keeps both sockets open and
/// forwards nothing, as a dead route does). It counts the connections it accepted and those still open.
/// </summary>
public sealed class FaultRelay : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly int _targetPort;
    private readonly CancellationTokenSource _stop = new();
    private readonly Lock _gate = new();
    private readonly List<Link> _links = [];
    private readonly Task _accepting;
    private (long ToServer, long ToClient)? _nextBudget;
    private int _accepted;

    private FaultRelay(int targetPort)
    {
        _targetPort = targetPort;
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    public int Accepted => Volatile.Read(ref _accepted);

    public int Open
    {
        get
        {
            lock (_gate)
            {
                return _links.Count;
            }
        }
    }

    public static FaultRelay Start(int targetPort) => new(targetPort);

    /// <summary>The next connection accepted is cut once this many bytes went towards the server, or towards the
    /// client (-1: no bound in that direction).</summary>
    public void CutNextAfter(long toServer, long toClient)
    {
        lock (_gate)
        {
            _nextBudget = (toServer, toClient);
        }
    }

    /// <summary>Every open connection is cut after this many more bytes towards the server (0: now).</summary>
    public void CutAfter(long toServer)
    {
        foreach (Link link in Snapshot())
        {
            link.Arm(toServer, -1);
        }
    }

    /// <summary>Every open connection stops forwarding and stays open.</summary>
    public void GoSilent()
    {
        foreach (Link link in Snapshot())
        {
            link.Silent = true;
        }
    }

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _listener.Stop();
        foreach (Link link in Snapshot())
        {
            link.Cut();
        }

        await _accepting.ConfigureAwait(false);
        _stop.Dispose();
    }

    private List<Link> Snapshot()
    {
        lock (_gate)
        {
            return [.. _links];
        }
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception) when (_stop.IsCancellationRequested)
            {
                return;
            }

            Interlocked.Increment(ref _accepted);
            var server = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            client.NoDelay = true;
            try
            {
                await server.ConnectAsync(IPAddress.Loopback, _targetPort, _stop.Token).ConfigureAwait(false);
            }
            catch (Exception)
            {
                Reset(client);
                server.Dispose();
                continue; // the server is down: the client sees its connection cut, as through a dead route
            }

            var link = new Link(client, server);
            lock (_gate)
            {
                if (_nextBudget is { } budget)
                {
                    link.Arm(budget.ToServer, budget.ToClient);
                    _nextBudget = null;
                }

                _links.Add(link);
            }

            _ = RunAsync(link);
        }
    }

    private async Task RunAsync(Link link)
    {
        await Task.WhenAll(PumpAsync(link, link.Client, link.Server, toServer: true), PumpAsync(link, link.Server, link.Client, toServer: false)).ConfigureAwait(false);
        link.Cut();
        lock (_gate)
        {
            _links.Remove(link);
        }
    }

    private static async Task PumpAsync(Link link, Socket from, Socket to, bool toServer)
    {
        byte[] buffer = new byte[16 * 1024];
        try
        {
            while (true)
            {
                int read = await from.ReceiveAsync(buffer, SocketFlags.None).ConfigureAwait(false);
                if (read == 0)
                {
                    to.Shutdown(SocketShutdown.Send);
                    return;
                }

                if (link.Silent)
                {
                    continue; // swallowed: the sender's TCP stays happy, nothing arrives
                }

                int allowed = link.Take(read, toServer);
                if (allowed > 0)
                {
                    await to.SendAsync(buffer.AsMemory(0, allowed), SocketFlags.None).ConfigureAwait(false);
                }

                if (allowed < read || link.Exhausted)
                {
                    link.Cut();
                    return;
                }
            }
        }
        catch (Exception)
        {
            link.Cut(); // either side went away, or the link was cut
        }
    }

    private static void Reset(Socket socket)
    {
        try
        {
            socket.LingerState = new LingerOption(true, 0); // close with RST: a cut, not a goodbye
        }
        catch (Exception)
        {
            // already closed
        }

        socket.Dispose();
    }

    private sealed class Link(Socket client, Socket server)
    {
        private readonly Lock _gate = new();
        private long _toServer = -1;
        private long _toClient = -1;
        private int _cut;

        public Socket Client { get; } = client;

        public Socket Server { get; } = server;

        public volatile bool Silent;

        public bool Exhausted
        {
            get
            {
                lock (_gate)
                {
                    return _toServer == 0 || _toClient == 0;
                }
            }
        }

        public void Arm(long toServer, long toClient)
        {
            lock (_gate)
            {
                _toServer = toServer;
                _toClient = toClient;
            }

            if (toServer == 0 || toClient == 0)
            {
                Cut();
            }
        }

        /// <summary>How many of <paramref name="count"/> bytes may pass in one direction.</summary>
        public int Take(int count, bool toServer)
        {
            lock (_gate)
            {
                ref long budget = ref toServer ? ref _toServer : ref _toClient;
                if (budget < 0)
                {
                    return count;
                }

                int allowed = (int)Math.Min(count, budget);
                budget -= allowed;
                return allowed;
            }
        }

        public void Cut()
        {
            if (Interlocked.Exchange(ref _cut, 1) == 0)
            {
                Reset(Client);
                Reset(Server);
            }
        }
    }
}

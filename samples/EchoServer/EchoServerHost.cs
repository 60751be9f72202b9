using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>Accepts connections on a TCP endpoint and runs an <see cref="EchoConnection"/> for each.</summary>
public sealed class EchoServerHost : IAsyncDisposable
{
    private readonly Socket _listener;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Task _acceptLoop;
    private readonly string _path;

    private EchoServerHost(Socket listener, string path)
    {
        _listener = listener;
        _path = path;
        _acceptLoop = AcceptLoopAsync();
    }

    /// <summary>The bound endpoint (useful with port 0).</summary>
    public IPEndPoint EndPoint => (IPEndPoint)_listener.LocalEndPoint!;

    /// <summary>The websocket URL served.</summary>
    public Uri Url => new($"ws://{EndPoint}{_path}");

    /// <summary>Binds and starts accepting.</summary>
    public static EchoServerHost Start(IPEndPoint endPoint, string path = "/echo")
    {
        var listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        listener.Bind(endPoint);
        listener.Listen(512);
        return new EchoServerHost(listener, path);
    }

    private async Task AcceptLoopAsync()
    {
        var connections = new List<Task>();
        try
        {
            while (!_stopping.IsCancellationRequested)
            {
                Socket socket = await _listener.AcceptAsync(_stopping.Token);
                socket.NoDelay = true;
                connections.RemoveAll(t => t.IsCompleted);
                connections.Add(Task.Run(() => RunConnectionAsync(socket)));
            }
        }
        catch (OperationCanceledException)
        {
        }
        catch (SocketException)
        {
        }

        await Task.WhenAll(connections);
    }

    private async Task RunConnectionAsync(Socket socket)
    {
        try
        {
            await new EchoConnection(socket, _path).RunAsync(_stopping.Token);
        }
        catch (Exception error) when (error is IOException or SocketException or OperationCanceledException)
        {
            // The peer reset the connection or the server is stopping: nothing to report in a demo.
        }
    }

    /// <summary>Stops accepting, cancels the connections and waits for them.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stopping.CancelAsync();
        _listener.Dispose();
        await _acceptLoop;
        _stopping.Dispose();
    }
}

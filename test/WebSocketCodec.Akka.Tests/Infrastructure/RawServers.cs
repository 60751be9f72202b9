using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>TCP endpoints that are not a websocket transport: a closed port, a plain HTTP server, a silent one.</summary>
public static class RawServers
{
    /// <summary>A port on 127.0.0.1 that nobody listens on (bound for a moment to find it, then released).</summary>
    public static int ClosedPort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    /// <summary>A server on 127.0.0.1 that answers every request with <c>404 Not Found</c> and closes; returns its port.
    /// It stops when <paramref name="stop"/> is cancelled.</summary>
    public static int PlainHttp404(CancellationToken stop)
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        stop.Register(listener.Stop);
        _ = Task.Run(async () =>
        {
            byte[] response = Encoding.ASCII.GetBytes("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            while (!stop.IsCancellationRequested)
            {
                Socket client;
                try
                {
                    client = await listener.AcceptSocketAsync(stop);
                }
                catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
                {
                    return;
                }

                using (client)
                {
                    try
                    {
                        await ReadHeadAsync(client, stop);
                        await client.SendAsync(response, stop);
                        client.Shutdown(SocketShutdown.Send);
                    }
                    catch (Exception error) when (error is OperationCanceledException or SocketException)
                    {
                        // the client went away: next one
                    }
                }
            }
        }, CancellationToken.None);
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>A server on 127.0.0.1 that accepts connections and never answers (a hung peer, a black-holing proxy);
    /// returns its port. It stops, closing what it accepted, when <paramref name="stop"/> is cancelled.</summary>
    public static int Silent(CancellationToken stop)
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var accepted = new List<Socket>();
        stop.Register(() =>
        {
            listener.Stop();
            lock (accepted)
            {
                accepted.ForEach(socket => socket.Dispose());
            }
        });
        _ = Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    Socket client = await listener.AcceptSocketAsync(stop);
                    lock (accepted)
                    {
                        accepted.Add(client);
                    }
                }
                catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
                {
                    return;
                }
            }
        }, CancellationToken.None);
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static async Task ReadHeadAsync(Socket client, CancellationToken stop)
    {
        var head = new StringBuilder();
        byte[] buffer = new byte[1024];
        int read;
        while (head.Length < 65536 && !head.ToString().Contains("\r\n\r\n", StringComparison.Ordinal)
            && (read = await client.ReceiveAsync(buffer, stop)) > 0)
        {
            head.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }
    }
}

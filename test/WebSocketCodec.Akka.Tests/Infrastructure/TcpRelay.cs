using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>
/// A TCP relay on 127.0.0.1 that forwards every connection to <c>127.0.0.1:target</c>; <see cref="Kill"/> resets every
/// relayed connection and stops accepting, so a node reached through the relay becomes unreachable at once, as when
/// its network goes away (the connection killed, not closed).
/// </summary>
public sealed class TcpRelay : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly ConcurrentDictionary<Socket, bool> _sockets = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly int _target;

    public TcpRelay(int target)
    {
        _target = target;
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _ = Task.Run(AcceptAsync, CancellationToken.None);
    }

    /// <summary>The relay's port.</summary>
    public int Port { get; }

    /// <summary>Connections accepted so far.</summary>
    public int Accepted => Volatile.Read(ref _accepted);

    private int _accepted;

    /// <summary>Stops accepting and resets every relayed connection (both sides get RST).</summary>
    public void Kill()
    {
        _stop.Cancel();
        _listener.Stop();
        foreach (Socket socket in _sockets.Keys)
        {
            Reset(socket);
        }
    }

    public void Dispose()
    {
        Kill();
        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket inbound;
            try
            {
                inbound = await _listener.AcceptSocketAsync(_stop.Token);
            }
            catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            Interlocked.Increment(ref _accepted);
            _ = RelayAsync(inbound);
        }
    }

    private async Task RelayAsync(Socket inbound)
    {
        var outbound = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        inbound.NoDelay = true;
        _sockets[inbound] = true;
        _sockets[outbound] = true;
        try
        {
            await outbound.ConnectAsync(new IPEndPoint(IPAddress.Loopback, _target), _stop.Token);
            await Task.WhenAny(PumpAsync(inbound, outbound), PumpAsync(outbound, inbound));
        }
        catch (Exception error) when (error is OperationCanceledException or SocketException or ObjectDisposedException)
        {
            // killed, or the target is gone
        }
        finally
        {
            Reset(inbound);
            Reset(outbound);
            _sockets.TryRemove(inbound, out _);
            _sockets.TryRemove(outbound, out _);
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
            // killed
        }
    }

    private static void Reset(Socket socket)
    {
        try
        {
            socket.LingerState = new LingerOption(true, 0); // close with RST
            socket.Close();
        }
        catch (ObjectDisposedException)
        {
            // closed already
        }
    }
}

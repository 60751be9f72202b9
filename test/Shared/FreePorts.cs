using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Testing;

/// <summary>Loopback ports for programs that must be told their port in advance (a seed node, a sample process).</summary>
public static class FreePorts
{
    /// <summary>A loopback port free at the time of asking (another process may take it before it is used).</summary>
    public static int Next()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}

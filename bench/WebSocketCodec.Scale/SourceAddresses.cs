using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Scale;

/// <summary>
/// Client source addresses from 127.0.0.0/8 (127.0.0.2, 127.0.0.3, ...: Linux routes the whole block to loopback):
/// one source address has about 28,000 ephemeral ports toward one server port, so many websockets need several. Each
/// run takes addresses no earlier run of the invocation used, so no port it needs is still in TIME_WAIT.
/// </summary>
internal static class SourceAddresses
{
    /// <summary>The <paramref name="index"/>-th address after 127.0.0.1 (index 0 is 127.0.0.2).</summary>
    public static IPAddress At(int index)
    {
        int host = index + 2;
        return new IPAddress([127, (byte)(host >> 16), (byte)(host >> 8), (byte)host]);
    }

    /// <summary>Binds <paramref name="socket"/> to <paramref name="source"/>; on Linux the port is chosen at connect
    /// (IP_BIND_ADDRESS_NO_PORT), per destination, instead of at bind among every port of the address.</summary>
    public static void BindWithoutPort(Socket socket, IPAddress source)
    {
        if (OperatingSystem.IsLinux())
        {
            const int SolIp = 0, IpBindAddressNoPort = 24;
            socket.SetRawSocketOption(SolIp, IpBindAddressNoPort, BitConverter.GetBytes(1));
        }

        socket.Bind(new IPEndPoint(source, 0));
    }
}

using System.Net.Sockets;
using System.Text;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>A chat member that never reads after the 101: a raw socket with a 4 KiB receive buffer, so what the room
/// sends it backs up in the server soon (the kernel cannot take much for it).</summary>
internal static class SilentChatMember
{
    public static Task<Socket> JoinAsync(ChatServerHost server, string room) => JoinAsync(server.RoomUrl(room), room);

    public static async Task<Socket> JoinAsync(Uri roomUrl, string room)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(roomUrl.Host, roomUrl.Port, RawHttp.Timeout());
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade($"/chat/{room}")), SocketFlags.None, RawHttp.Timeout());
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(socket)); // from now on nothing is read
        return socket;
    }
}

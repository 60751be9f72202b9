using System.Net.WebSockets;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>The <c>aspnet-loop</c> variant: ASP.NET Core's websockets, each sent to in turn with
/// <see cref="WebSocket.SendAsync(ReadOnlyMemory{byte}, WebSocketMessageType, bool, CancellationToken)"/>.</summary>
internal sealed class AspNetLoopFanOut : IFanOut
{
    public MemberList<WebSocket> Members { get; } = new();

    public int Count => Members.Count;

    public async ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload)
    {
        foreach (WebSocket webSocket in Members.Snapshot())
        {
            await webSocket.SendAsync(payload, WebSocketMessageType.Binary, endOfMessage: true, CancellationToken.None);
        }
    }
}

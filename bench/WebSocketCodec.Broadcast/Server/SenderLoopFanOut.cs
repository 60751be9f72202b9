using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>The <c>sender-loop</c> variant: our endpoint's websockets, each sent to in turn with its own
/// <see cref="WebSocketFrameSender.SendAsync"/> (a frame encoded per websocket).</summary>
internal sealed class SenderLoopFanOut : IFanOut
{
    public MemberList<WebSocketConnection> Members { get; } = new();

    public int Count => Members.Count;

    public async ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload)
    {
        foreach (WebSocketConnection connection in Members.Snapshot())
        {
            await connection.Sender.SendAsync(WebSocketOpcode.Binary, payload);
        }
    }
}

using System.Diagnostics;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>
/// The burst mode's listener (<c>serve --relay</c>), a chat: every whole message a member sends goes to the whole group,
/// the sender included, from the member's read loop (<see cref="GroupFanOut.Relay"/>). Counts what it relayed, fragments
/// it did not (the tool's client sends whole messages), and websockets that ended with our 1008 (slow consumer).
/// </summary>
internal sealed class RelayListener(GroupFanOut group, RelayCounts counts) : IWebSocketFrameListener
{
    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        if (fin && opcode is WebSocketOpcode.Binary or WebSocketOpcode.Text)
        {
            Interlocked.Increment(ref counts.Relayed); // before: the driver may ask for the report once the last receipt is in
            group.Relay(opcode, payload);
            counts.Returned(Stopwatch.GetTimestamp());
        }
        else
        {
            Interlocked.Increment(ref counts.Fragments);
        }
    }

    public void OnClose(WebSocketCloseInfo info)
    {
        if (info.SentStatus == CloseStatus.PolicyViolation)
        {
            Interlocked.Increment(ref counts.SlowEnded);
        }
    }
}

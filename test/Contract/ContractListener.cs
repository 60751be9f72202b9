using System.Text;
using System.Threading.Channels;

namespace WebSocketCodec.Testing.Contract;

/// <summary>What a contract listener does with a data frame.</summary>
public enum ContractBehaviour
{
    /// <summary>Sends every data frame back as it came.</summary>
    Echo,

    /// <summary>Throws from <see cref="IWebSocketFrameListener.OnFrame"/>.</summary>
    ThrowOnFrame,

    /// <summary>Throws from <see cref="IWebSocketFrameListener.OnReadCompleteAsync"/> after a read that carried data.</summary>
    ThrowOnReadComplete,

    /// <summary>Starts the close handshake (1000 "bye") on the first data frame.</summary>
    CloseOnFrame,

    /// <summary>Joins <see cref="ContractRecord.Group"/> on its first data frame (a server websocket of any host can).</summary>
    JoinGroup,

    /// <summary>Answers each data frame with <see cref="ContractListener.FloodFrames"/> binary frames of
    /// <see cref="ContractListener.FloodFrameSize"/> bytes, far above any high water mark a case sets.</summary>
    Flood,

    /// <summary>Sends "held-1", tells <see cref="ContractRecord.Holding"/>, blocks in the callback until
    /// <see cref="ContractRecord.Release"/> is set (bounded), then sends "held-2" (whether it could is
    /// <see cref="ContractRecord.HeldSecondSent"/>): a listener busy inside a read.</summary>
    Hold,
}

/// <summary>A listener of the contract suite: records every callback in order (frames, Pongs, the end) and behaves as
/// told.</summary>
public sealed class ContractListener(WebSocketFrameSender sender, ContractBehaviour behaviour, ContractRecord record) : IWebSocketFrameListener
{
    private bool _readData;

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        record.Events.Enqueue($"{opcode}:{Encoding.UTF8.GetString(payload)}");
        _readData = true;
        switch (behaviour)
        {
            case ContractBehaviour.Echo:
                sender.Send(opcode, payload, fin);
                break;
            case ContractBehaviour.ThrowOnFrame:
                throw new InvalidOperationException("the application failed");
            case ContractBehaviour.JoinGroup:
                if (record.Group.Add(sender.Driver))
                {
                    record.Joined.Writer.TryWrite(sender.Driver);
                }

                break;
            case ContractBehaviour.Flood:
                byte[] block = new byte[FloodFrameSize];
                for (int i = 0; i < FloodFrames; i++)
                {
                    block[0] = (byte)i; // the peer checks the order
                    sender.Send(WebSocketOpcode.Binary, block);
                }

                break;
            case ContractBehaviour.Hold:
                sender.Send(WebSocketOpcode.Text, "held-1"u8);
                record.Holding.TrySetResult(sender);
                if (!record.Release.Wait(TimeSpan.FromSeconds(30)))
                {
                    throw new TimeoutException("The test never released the listener.");
                }

                record.HeldSecondSent.TrySetResult(sender.Send(WebSocketOpcode.Text, "held-2"u8));
                break;
            case ContractBehaviour.CloseOnFrame:
                // On the loop the Close is flushed after the read; the task completes when the handshake has ended.
                record.Closes.Writer.TryWrite(sender.CloseAsync(CloseStatus.NormalClosure, "bye"));
                break;
        }
    }

    public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
    {
        if (behaviour == ContractBehaviour.ThrowOnReadComplete && _readData)
        {
            throw new InvalidOperationException("the application failed after the read");
        }

        return ValueTask.CompletedTask;
    }

    /// <summary>Frames a <see cref="ContractBehaviour.Flood"/> listener sends for each frame it reads.</summary>
    public const int FloodFrames = 512; // 8 MiB: more than a loopback connection's kernel buffers hold unread (4 MiB to send, 128 KiB to receive)

    /// <summary>The payload of each of those frames.</summary>
    public const int FloodFrameSize = 16 * 1024;

    public void OnPong(ReadOnlySpan<byte> payload) => record.Events.Enqueue($"Pong:{Encoding.UTF8.GetString(payload)}");

    public void OnWritabilityChanged(bool writable) => record.Writability.Writer.TryWrite(writable);

    public void OnClose(WebSocketCloseInfo info) => record.Ends.Writer.TryWrite(info);
}

/// <summary>What the contract listeners of one server saw.</summary>
public sealed class ContractRecord
{
    /// <summary>Frames and Pongs, in the order the listeners got them.</summary>
    public System.Collections.Concurrent.ConcurrentQueue<string> Events { get; } = new();

    /// <summary>The writability changes the listeners were told of, in order.</summary>
    public Channel<bool> Writability { get; } = Channel.CreateUnbounded<bool>();

    /// <summary>The next writability change, within the test bound.</summary>
    public async Task<bool> NextWritabilityAsync() => await Writability.Reader.ReadAsync(RawHttp.Timeout());

    /// <summary>The tasks <see cref="WebSocketFrameSender.CloseAsync"/> returned to a <see cref="ContractBehaviour.CloseOnFrame"/>
    /// listener.</summary>
    public Channel<Task<WebSocketCloseInfo>> Closes { get; } = Channel.CreateUnbounded<Task<WebSocketCloseInfo>>();

    /// <summary>Set by a <see cref="ContractBehaviour.Hold"/> listener, with its sender, once it is inside the callback.</summary>
    public TaskCompletionSource<WebSocketFrameSender> Holding { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>What a <see cref="ContractBehaviour.Hold"/> listener's send after its release returned.</summary>
    public TaskCompletionSource<bool> HeldSecondSent { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Lets a <see cref="ContractBehaviour.Hold"/> listener return.</summary>
    public ManualResetEventSlim Release { get; } = new();

    /// <summary>The group <see cref="ContractBehaviour.JoinGroup"/> listeners join.</summary>
    public WebSocketGroup Group { get; init; } = new();

    /// <summary>The websockets that joined <see cref="Group"/>, in order.</summary>
    public Channel<WebSocketDriver> Joined { get; } = Channel.CreateUnbounded<WebSocketDriver>();

    /// <summary>How the websockets ended.</summary>
    public Channel<WebSocketCloseInfo> Ends { get; } = Channel.CreateUnbounded<WebSocketCloseInfo>();

    /// <summary>The next end, within the test bound.</summary>
    public async Task<WebSocketCloseInfo> NextEndAsync() => await Ends.Reader.ReadAsync(RawHttp.Timeout());
}

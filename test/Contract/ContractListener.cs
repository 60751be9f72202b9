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
            case ContractBehaviour.CloseOnFrame:
                _ = sender.CloseAsync(CloseStatus.NormalClosure, "bye").AsTask(); // on the loop: completes at once, flushed after the read
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

    public void OnPong(ReadOnlySpan<byte> payload) => record.Events.Enqueue($"Pong:{Encoding.UTF8.GetString(payload)}");

    public void OnClose(WebSocketCloseInfo info) => record.Ends.Writer.TryWrite(info);
}

/// <summary>What the contract listeners of one server saw.</summary>
public sealed class ContractRecord
{
    /// <summary>Frames and Pongs, in the order the listeners got them.</summary>
    public System.Collections.Concurrent.ConcurrentQueue<string> Events { get; } = new();

    /// <summary>How the websockets ended.</summary>
    public Channel<WebSocketCloseInfo> Ends { get; } = Channel.CreateUnbounded<WebSocketCloseInfo>();

    /// <summary>The next end, within the test bound.</summary>
    public async Task<WebSocketCloseInfo> NextEndAsync() => await Ends.Reader.ReadAsync(RawHttp.Timeout());
}

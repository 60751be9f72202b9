using System.Buffers;
using System.Runtime.CompilerServices;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.PerfTest;

/// <summary>The bulk encoder echo: a read's frames are gathered, then written in one batch (one buffer, one write, one
/// flush) when the read is done.</summary>
internal sealed class BulkEchoListener(WebSocketFrameSender sender) : IWebSocketFrameListener
{
    private static readonly BulkWriteAction<BulkEchoListener> WriteAll = static (ref BulkFrameWriter bulk, BulkEchoListener self) =>
    {
        ReadOnlySpan<byte> payloads = self._payloads.WrittenSpan;
        foreach ((WebSocketOpcode opcode, bool fin, int length) in self._frames)
        {
            bulk.Add(opcode, payloads[..length], fin);
            payloads = payloads[length..];
        }
    };

    private const int ChunkSize = 4096;

    private readonly ArrayBufferWriter<byte> _payloads = new(64 * 1024);
    private readonly List<(WebSocketOpcode Opcode, bool Fin, int Length)> _frames = new(256);

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        payload.CopyTo(_payloads.GetSpan(payload.Length));
        _payloads.Advance(payload.Length);
        _frames.Add((opcode, fin, payload.Length));
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
    {
        if (_frames.Count > 0 && sender.CanSend)
        {
            // The bulk writer moves to a new chunk when one is full: ask for pool-sized chunks, not the whole read at
            // once (a pipe serves a hint beyond its pool's block size with memory it does not pool).
            await sender.SendBulkAsync(WriteAll, this, Math.Min(_payloads.WrittenCount + (_frames.Count * 14), ChunkSize), cancellationToken);
        }

        _frames.Clear();
        _payloads.ResetWrittenCount();
    }
}

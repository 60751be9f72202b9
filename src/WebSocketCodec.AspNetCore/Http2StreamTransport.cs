using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The websocket's transport on an HTTP/2 (or HTTP/3) stream. <see cref="CloseOutputAsync"/> ends the response,
/// which sends END_STREAM while the request side stays readable (a half-close, RFC 8441 section 5.1); otherwise the
/// stream ends when the endpoint returns (END_STREAM) or resets it (RST_STREAM).</summary>
/// <remarks>The stream pipes work in 32 KiB buffers: each buffer the writer fills is one write into the stream (one
/// DATA frame or two), so with the default 4 KiB a window of small echoed frames cost eight writes where the byte
/// echo made one (the perf tool's <c>raw-h2</c> comparison is in <c>bench/results</c>). The memory is pooled and held
/// only while a read or write is under way: reads wait for data with a zero-byte read before renting a buffer.</remarks>
internal sealed class Http2StreamTransport(Stream stream, HttpResponse response) : IHalfClosingDuplexPipe
{
    private const int BufferSize = 32 * 1024;

    public PipeReader Input { get; } = PipeReader.Create(stream, new StreamPipeReaderOptions(bufferSize: BufferSize, minimumReadSize: 4096, leaveOpen: true, useZeroByteReads: true));

    public PipeWriter Output { get; } = PipeWriter.Create(stream, new StreamPipeWriterOptions(minimumBufferSize: BufferSize, leaveOpen: true));

    public async ValueTask CloseOutputAsync()
    {
        await Output.CompleteAsync().ConfigureAwait(false);
        try
        {
            await response.CompleteAsync().ConfigureAwait(false); // END_STREAM
        }
        catch (Exception error) when (error is InvalidOperationException or IOException or OperationCanceledException)
        {
            // The stream was reset or the connection lost: there is nothing left to end.
        }
    }
}

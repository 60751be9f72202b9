using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The websocket's transport on an HTTP/2 (or HTTP/3) stream. <see cref="CloseOutputAsync"/> ends the response,
/// which sends END_STREAM while the request side stays readable (a half-close, RFC 8441 section 5.1); otherwise the
/// stream ends when the endpoint returns (END_STREAM) or resets it (RST_STREAM).</summary>
internal sealed class Http2StreamTransport(Stream stream, HttpResponse response) : IHalfClosingDuplexPipe
{
    public PipeReader Input { get; } = PipeReader.Create(stream, new StreamPipeReaderOptions(bufferSize: 16 * 1024, leaveOpen: true));

    public PipeWriter Output { get; } = PipeWriter.Create(stream, new StreamPipeWriterOptions(leaveOpen: true));

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

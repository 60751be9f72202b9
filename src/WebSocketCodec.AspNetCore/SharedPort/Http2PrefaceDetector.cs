using System.Buffers;
using System.IO.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Tells an HTTP/2 prior-knowledge connection (RFC 9113 section 3.3: it opens with the 24-byte preface) from
/// an HTTP/1.1 one by its first bytes, without consuming them.</summary>
internal static class Http2PrefaceDetector
{
    /// <summary>Reads until the core's <see cref="HttpProtocolClassifier"/> can tell: the preface (true), an HTTP/1.x
    /// request line or unrecognised bytes (false: Kestrel's HTTP/1.1 side answers what is not a request with 400), or
    /// the peer ends its side (false). Everything read stays in <paramref name="input"/>, unexamined, for the protocol that takes over.</summary>
    public static async ValueTask<bool> IsHttp2Async(PipeReader input, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> buffer = result.Buffer;
            HttpProtocolGuess verdict = HttpProtocolClassifier.Classify(buffer);
            if (verdict == HttpProtocolGuess.NeedMoreData && !result.IsCompleted && !result.IsCanceled)
            {
                // A prefix of the preface, or of a method, so far: wait for more.
                input.AdvanceTo(buffer.Start, buffer.End);
                continue;
            }

            // Nothing consumed and nothing examined, so the next reader's first ReadAsync returns these bytes at once.
            input.AdvanceTo(buffer.Start);
            return verdict == HttpProtocolGuess.Http2;
        }
    }
}

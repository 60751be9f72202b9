using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The frame reader (<see cref="FrameDecoder"/>): the fast path over the whole input, the general path, the fast
/// path over several cut plans and the streaming drive must deliver the same frames and end with the same violation
/// (the streaming drive may fail earlier, inside a payload the input cuts short: UTF-8 and close statuses are checked
/// as bytes arrive). Options vary per input: role (the entry's, sometimes the other), limits at the length boundaries,
/// RSV bits allowed, permessage-deflate, UTF-8 validation. The fast path over the whole input is also checked against
/// the reference model (<see cref="ModelOracle"/>), and an early failure of the streaming drive must be one the bytes
/// so far prove.
/// </summary>
public sealed class FrameTarget : IFuzzTarget
{
    private static readonly long[] Limits = [0, 1, 2, 125, 126, 127, 65535, 65536, 1000, 16 * 1024 * 1024];

    /// <inheritdoc />
    public string Name => "frames";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(FrameSeeds.All, frames: true);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <summary>The options an input runs with, from its generator.</summary>
    public static FrameDecoderOptions PickOptions(FuzzRng rng)
    {
        ArgumentNullException.ThrowIfNull(rng);
        if (rng.OneIn(2))
        {
            return FrameDecoderOptions.Default;
        }

        long frame = rng.OneIn(2) ? FrameDecoderOptions.Default.MaxFramePayloadLength : rng.Pick(Limits);
        long message = rng.OneIn(2) ? FrameDecoderOptions.Default.MaxMessagePayloadLength : rng.Pick(Limits);
        return new FrameDecoderOptions
        {
            MaxFramePayloadLength = frame,
            MaxMessagePayloadLength = message,
            AllowedRsv = rng.OneIn(4) ? rng.Next(8) : 0,
            ValidateUtf8 = !rng.OneIn(8),
            PerMessageDeflate = rng.OneIn(4),
        };
    }

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        WebSocketRole role = entry.Role ?? WebSocketRole.Server;
        if (rng.OneIn(16))
        {
            role = role == WebSocketRole.Server ? WebSocketRole.Client : WebSocketRole.Server;
        }

        FrameDecoderOptions options = PickOptions(rng);
        FrameTrace fast = DecoderDrives.FastWhole(role, options, input);
        context.Count(fast.Violation == ProtocolViolation.None ? $"ok ({(fast.Frames.Count > 0 ? "frames" : "none")})" : fast.Violation.ToString());
        ModelVerdict model = ReferenceModel.Read(input, ModelOracle.For(role, options));
        ModelOracle.CheckFrames(model, fast, "the fast path and the model");
        DecoderDrives.GeneralWhole(role, options, input, rng).AssertSame(fast, "fast path and general path");
        foreach (int[] cuts in Splits.Plans(input.Length, rng))
        {
            string where = Describe(cuts);
            DecoderDrives.FastSplit(role, options, input, cuts).AssertSame(fast, $"whole and split at {where}:");
            (FrameTrace streamed, bool endedInCutPayload) = DecoderDrives.Streaming(role, options, input, cuts);
            if (streamed.Violation != fast.Violation && fast.Violation == ProtocolViolation.None && endedInCutPayload
                && streamed.Violation is ProtocolViolation.InvalidTextUtf8 or ProtocolViolation.InvalidCloseStatus
                    or ProtocolViolation.InvalidCloseReasonUtf8)
            {
                ModelOracle.CheckEarlyFailure(model, streamed.Violation, $"streaming at {where}, failing early in a cut payload");
                context.Count("streaming failed early in a cut payload");
                streamed.Violation = ProtocolViolation.None;
            }

            streamed.AssertSame(fast, $"whole and streaming at {where}:");
        }
    }

    /// <summary>Cut points, shortened for messages.</summary>
    public static string Describe(int[] cuts)
    {
        ArgumentNullException.ThrowIfNull(cuts);
        return cuts.Length > 10 ? $"every byte ({cuts.Length} cuts)" : "[" + string.Join(",", cuts) + "]";
    }
}

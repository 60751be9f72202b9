using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The session (<see cref="WebSocketSession"/>), both roles: the whole input in one read and the same input cut one
/// byte at a time (short inputs) and at random points must hand the handler the same frames and end with the same
/// violation and the same Close status (and, when no rule was broken, the same state and peer's Close); the output
/// is whole frames with nothing after the Close; after <c>Dispose</c> every pooled array is back. The whole-input run
/// is also checked against the reference model (<see cref="ModelOracle"/>).
/// </summary>
public sealed class SessionTarget : IFuzzTarget
{
    private static readonly int[] Limits = [0, 1, 2, 125, 126, 127, 65535, 65536, 1000, 16 * 1024 * 1024];

    /// <inheritdoc />
    public string Name => "session";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(FrameSeeds.All, frames: true);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

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

        WebSocketSessionOptions options = WebSocketSessionOptions.Default;
        if (rng.OneIn(2))
        {
            options = options with
            {
                MaxFramePayloadLength = rng.OneIn(2) ? options.MaxFramePayloadLength : rng.Pick(Limits),
                MaxMessagePayloadLength = rng.OneIn(2) ? options.MaxMessagePayloadLength : rng.Pick(Limits),
                ValidateUtf8 = !rng.OneIn(8),
                MaxDrainBytes = rng.OneIn(2) ? options.MaxDrainBytes : rng.Next(200),
            };
        }

        int throwAt = rng.OneIn(8) ? rng.Next(4) : -1;
        SessionTrace whole = SessionDrive.Run(role, options, input, [], throwAt);
        ModelOracle.CheckSession(ReferenceModel.Read(input, ModelOracle.For(role, options)), whole, throwAt, "the session and the model");
        context.Count(whole.Violation != ProtocolViolation.None ? whole.Violation.ToString()
            : whole.SentCloseStatus == CloseStatus.InternalError ? "handler failed"
            : whole.ReceivedCloseStatus is { } received ? $"{whole.State} (peer's Close{(received == CloseStatus.NoStatusReceived ? ", empty" : string.Empty)})"
            : whole.State.ToString());
        foreach (int[] cuts in Splits.Plans(input.Length, rng))
        {
            SessionDrive.Run(role, options, input, cuts, throwAt).AssertSame(whole, $"whole and split at {FrameTarget.Describe(cuts)}:");
        }
    }
}

namespace WebSocketCodec.Fuzz;

/// <summary>
/// How a bare input from AFL++ (or a file of the committed AFL corpus) becomes what a target runs: AFL hands over
/// bytes only, so the corpus entry and the generator come from the bytes themselves and the same file always replays
/// the same way, under afl-fuzz, in the tests and from the command line.
/// </summary>
public static class AflInput
{
    /// <summary>The entry name AFL inputs run under.</summary>
    public const string EntryName = "afl";

    /// <summary>The entry of <paramref name="input"/>: its role is the end that reads the first frame as sent (a
    /// server reads masked frames, so the mask bit of byte 1 set means server); targets that read no frames ignore it.</summary>
    public static CorpusEntry EntryFor(byte[] input)
    {
        ArgumentNullException.ThrowIfNull(input);
        WebSocketRole role = input.Length >= 2 && (input[1] & 0x80) != 0 ? WebSocketRole.Server : WebSocketRole.Client;
        return new CorpusEntry(EntryName, input, role);
    }

    /// <summary>The generator of <paramref name="input"/> for <paramref name="target"/>: seeded from an FNV-1a hash of the
    /// bytes, so options and cut points are a function of the input alone.</summary>
    public static FuzzRng RngFor(string target, byte[] input)
    {
        ArgumentNullException.ThrowIfNull(input);
        return FuzzRng.ForInput(Hash(input), target, input.Length);
    }

    /// <summary>Runs <paramref name="input"/> through <paramref name="target"/> as the AFL harness does; the violation,
    /// or null.</summary>
    public static FuzzViolation? Check(FuzzRunner runner, IFuzzTarget target, byte[] input)
    {
        ArgumentNullException.ThrowIfNull(runner);
        ArgumentNullException.ThrowIfNull(target);
        return runner.Check(target, EntryFor(input), input, RngFor(target.Name, input));
    }

    /// <summary>The 64-bit FNV-1a hash of <paramref name="input"/>.</summary>
    public static ulong Hash(ReadOnlySpan<byte> input)
    {
        ulong h = 14695981039346656037UL;
        foreach (byte b in input)
        {
            h = (h ^ b) * 1099511628211UL;
        }

        return h;
    }
}

using System.Globalization;
using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>One failed oracle: enough to replay the input (seed, target, index) and the input itself.</summary>
/// <param name="Target">The target.</param>
/// <param name="Seed">The run's seed.</param>
/// <param name="Index">The input's index within the target.</param>
/// <param name="Entry">The corpus entry it was made from.</param>
/// <param name="Input">The input bytes.</param>
/// <param name="Message">What failed.</param>
public sealed record FuzzViolation(string Target, ulong Seed, long Index, string Entry, byte[] Input, string Message)
{
    /// <summary>The message with numbers taken out: violations of one kind share it.</summary>
    public string Signature
    {
        get
        {
            var text = new StringBuilder();
            foreach (char c in Message.AsSpan(0, Math.Min(Message.Length, 160)))
            {
                if (!char.IsAsciiDigit(c))
                {
                    text.Append(c);
                }
            }

            return text.ToString();
        }
    }

    /// <summary>The input as hex.</summary>
    public string Hex => Convert.ToHexString(Input);

    /// <inheritdoc />
    public override string ToString() => string.Create(
        CultureInfo.InvariantCulture,
        $"VIOLATION target={Target} seed={Seed} index={Index} entry={Entry}\n  {Message}\n  input ({Input.Length} B): {(Input.Length <= 512 ? Hex : Hex[..1024] + "...")}\n  replay: dotnet run -c Release --project bench/WebSocketCodec.Fuzz -- --target {Target} --seed {Seed} --replay {Index}");

    /// <summary>Writes the violation to <paramref name="directory"/> (the whole input, hex).</summary>
    public string WriteTo(DirectoryInfo directory)
    {
        directory.Create();
        string path = Path.Combine(directory.FullName, string.Create(CultureInfo.InvariantCulture, $"{Target}-{Seed}-{Index}.txt"));
        File.WriteAllText(path, string.Create(
            CultureInfo.InvariantCulture,
            $"target: {Target}\nseed: {Seed}\nindex: {Index}\nentry: {Entry}\nmessage: {Message}\ninput-hex: {Hex}\n"));
        return path;
    }
}

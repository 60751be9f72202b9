namespace WebSocketCodec.Fuzz;

/// <summary>Ways to cut an input into the reads a transport might deliver.</summary>
public static class Splits
{
    /// <summary>Inputs up to this long are also fed one byte at a time.</summary>
    public const int ByteAtATimeLimit = 48;

    /// <summary>The cut plans for an input of <paramref name="length"/> bytes: one byte at a time (short inputs), and
    /// <paramref name="randomPlans"/> plans of random cut points (1 to 8 cuts, some near header-sized offsets).</summary>
    public static List<int[]> Plans(int length, FuzzRng rng, int randomPlans = 3)
    {
        var plans = new List<int[]>();
        if (length <= 1)
        {
            return plans;
        }

        if (length <= ByteAtATimeLimit)
        {
            plans.Add([.. Enumerable.Range(1, length - 1)]);
        }

        for (int p = 0; p < randomPlans; p++)
        {
            int cuts = 1 + rng.Next(8);
            var points = new SortedSet<int>();
            for (int i = 0; i < cuts; i++)
            {
                // Half of the cuts land in the first 16 bytes of the input, where headers are.
                points.Add(rng.OneIn(2) ? 1 + rng.Next(Math.Min(length - 1, 16)) : 1 + rng.Next(length - 1));
            }

            plans.Add([.. points]);
        }

        return plans;
    }

    /// <summary>The pieces of <paramref name="input"/> cut at <paramref name="cuts"/> (ascending, inside the input).</summary>
    public static IEnumerable<(int Start, int Length)> Pieces(int length, int[] cuts)
    {
        int start = 0;
        foreach (int cut in cuts)
        {
            yield return (start, cut - start);
            start = cut;
        }

        yield return (start, length - start);
    }
}

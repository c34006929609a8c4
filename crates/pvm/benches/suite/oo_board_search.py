"""Game-tree search: alpha-beta minimax over a Connect-Four board class with move generation,
win detection and a transposition table keyed by the board's string."""


class Board:
    W, H = 6, 5

    def __init__(self):
        self.cells = [[0] * self.H for _ in range(self.W)]
        self.heights = [0] * self.W
        self.moves = 0

    def can_play(self, col):
        return self.heights[col] < self.H

    def play(self, col, who):
        self.cells[col][self.heights[col]] = who
        self.heights[col] += 1
        self.moves += 1

    def undo(self, col):
        self.heights[col] -= 1
        self.cells[col][self.heights[col]] = 0
        self.moves -= 1

    def wins(self, col, who):
        row = self.heights[col] - 1
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                c, r = col + dc * sign, row + dr * sign
                while 0 <= c < self.W and 0 <= r < self.H and self.cells[c][r] == who:
                    n += 1
                    c += dc * sign
                    r += dr * sign
            if n >= 4:
                return True
        return False

    def key(self):
        return "".join("".join(map(str, col)) for col in self.cells)


class Searcher:
    ORDER = (2, 3, 1, 4, 0, 5)

    def __init__(self):
        self.table = {}
        self.nodes = 0

    def negamax(self, board, who, depth, alpha, beta):
        self.nodes += 1
        if depth == 0 or board.moves == Board.W * Board.H:
            return 0
        k = board.key()
        hit = self.table.get(k)
        if hit is not None and hit[0] >= depth:
            return hit[1]
        best = -1000
        for col in self.ORDER:
            if not board.can_play(col):
                continue
            board.play(col, who)
            if board.wins(col, who):
                score = 100 + depth
            else:
                score = -self.negamax(board, 3 - who, depth - 1, -beta, -alpha)
            board.undo(col)
            if score > best:
                best = score
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        self.table[k] = (depth, best)
        return best


b = Board()
s = Searcher()
print(s.negamax(b, 1, 13, -1000, 1000), s.nodes, len(s.table))

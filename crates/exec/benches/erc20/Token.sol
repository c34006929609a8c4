// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// The peer of `examples/actors/token.py` for the `blocks` benchmark: a minimal standard
/// ERC-20 transfer (read the sender's balance, revert if insufficient, write two balances,
/// emit Transfer). The constructor mints the supply to the deployer.
contract Token {
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error InsufficientBalance(uint256 have, uint256 want);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 have = balanceOf[msg.sender];
        if (have < amount) revert InsufficientBalance(have, amount);
        unchecked {
            balanceOf[msg.sender] = have - amount;
        }
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
